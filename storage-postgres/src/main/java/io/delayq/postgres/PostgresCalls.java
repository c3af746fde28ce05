package io.delayq.postgres;

import io.delayq.core.JobRef;
import io.delayq.core.StoreException;
import io.delayq.core.StoreStatus;
import org.jdbi.v3.core.JdbiException;

import java.sql.SQLException;
import java.util.Comparator;
import java.util.function.Supplier;

/** How the store's statements run: PostgreSQL's errors as the SPI's, a retry where the statement did not happen. */
final class PostgresCalls {
    /**
     * The order in which a batch names its jobs: concurrent batches then take row locks in one order and never
     * deadlock.
     */
    static final Comparator<JobRef> LOCK_ORDER = Comparator.comparing(JobRef::topic).thenComparing(JobRef::id);

    private PostgresCalls() {
    }

    /**
     * Runs one statement; connection and server failures become {@link StoreStatus#UNAVAILABLE}. A deadlock or
     * serialization failure (the statement did not happen) is retried twice.
     */
    static <T> T call(String operation, Supplier<T> action) {
        for (int attempt = 1; ; attempt++) {
            try {
                return action.get();
            } catch (JdbiException | BatchTransitions.Failure e) {
                if (attempt < 3 && isRetryable(e)) {
                    continue;
                }
                throw new StoreException(StoreStatus.UNAVAILABLE, "PostgreSQL did not " + operation + ": "
                        + rootMessage(e) + " (is PostgreSQL running and reachable?)", e);
            }
        }
    }

    /** {@link #call} for a statement on plain JDBC ({@link BatchTransitions}). */
    static <T> T callDirect(String operation, BatchTransitions.Call<T> action) {
        return call(operation, () -> {
            try {
                return action.run();
            } catch (SQLException e) {
                throw new BatchTransitions.Failure(e);
            }
        });
    }

    private static boolean isRetryable(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException sql && sql.getSQLState() != null
                    && (sql.getSQLState().equals("40P01") || sql.getSQLState().equals("40001"))) {
                return true;
            }
        }
        return false;
    }

    private static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getMessage() == null ? root.toString() : root.getMessage();
    }
}
