package io.delayq.postgres.archive;

import io.delayq.core.StoreException;
import io.delayq.core.StoreStatus;
import org.jdbi.v3.core.JdbiException;

import java.sql.SQLException;
import java.util.function.Supplier;

/** How the archive's statements (dead letters and the operator log alike) turn PostgreSQL's errors into the SPI's. */
final class ArchiveCalls {
    private ArchiveCalls() {
    }

    /**
     * Runs one statement. A deadlock or serialization failure (the statement did not happen) is retried twice. A value
     * PostgreSQL refuses (SQLSTATE classes 22 data exception, 23 integrity constraint, 54 program limit) will not be
     * taken by retrying: {@link IllegalArgumentException}. Anything else is {@link StoreStatus#UNAVAILABLE}.
     */
    static <T> T call(String operation, Supplier<T> action) {
        for (int attempt = 1; ; attempt++) {
            try {
                return action.get();
            } catch (JdbiException e) {
                String state = sqlState(e);
                if (attempt < 3 && ("40P01".equals(state) || "40001".equals(state))) {
                    continue;
                }
                if (state != null && (state.startsWith("22") || state.startsWith("23") || state.startsWith("54"))) {
                    throw new IllegalArgumentException("the archive (PostgreSQL) refused to " + operation + ": "
                            + rootMessage(e), e);
                }
                throw new StoreException(StoreStatus.UNAVAILABLE, "the archive (PostgreSQL) could not " + operation
                        + ": " + rootMessage(e) + " (is PostgreSQL running and reachable?)", e);
            }
        }
    }

    private static String sqlState(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException sql && sql.getSQLState() != null) {
                return sql.getSQLState();
            }
        }
        return null;
    }

    static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getMessage() == null ? root.toString() : root.getMessage();
    }
}
