package io.delayq.postgres;

import io.delayq.core.LeaseToken;
import io.delayq.postgres.Rows.Created;
import io.delayq.postgres.Rows.Reserved;
import org.postgresql.PGStatement;
import org.postgresql.core.BaseConnection;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * The transitions that carry a batch per call, on plain JDBC: {@code enqueue}, {@code reserve} and {@code ack}. Their
 * SQL files are beside {@link JobTransitions}' in {@code io/delayq/postgres/sql/} (read by {@link NamedSql}); what
 * differs is the binding. JDBI hands an array to the driver as {@code Object[]}, which pgjdbc can only send as array
 * text (each element escaped, then parsed by the server's {@code array_in}); a typed Java array given to
 * {@link Connection#createArrayOf} goes in PostgreSQL's binary array format. Rows are read by column index where the shape is fixed and through {@link JobRowMapper} where
 * it is a job. Together about a third less client CPU per job, and the server's array parsing gone.
 *
 * <p>pgjdbc keeps each statement prepared per connection (server-side after {@code prepareThreshold} uses, 5), so
 * preparing it again on every call costs no parse.
 */
final class BatchTransitions {
    /**
     * The smallest batch tried by COPY: its transaction takes three round trips more than the one statement of
     * {@code enqueue.sql}, which a few jobs (coalesced single enqueues) do not win back.
     */
    static final int COPY_MIN_BATCH = 64;
    private static final NamedSql ENQUEUE = NamedSql.load("enqueue");
    private static final NamedSql RESERVE = NamedSql.load("reserve");
    private static final NamedSql ACK = NamedSql.load("ack");

    private final DataSource dataSource;
    private final JobRowMapper jobs;

    BatchTransitions(DataSource dataSource, JobRowMapper jobs) {
        this.dataSource = dataSource;
        this.jobs = jobs;
    }

    /** A statement run on plain JDBC. */
    @FunctionalInterface
    interface Call<T> {
        T run() throws SQLException;
    }

    /** A {@link SQLException} of these statements, unchecked so that the store's error mapping sees it as JDBI's. */
    static final class Failure extends RuntimeException {
        Failure(SQLException cause) {
            super(cause.getMessage(), cause);
        }
    }

    /**
     * {@code enqueue.sql}: one row per job created now. A batch of {@value #COPY_MIN_BATCH} jobs or more is first
     * tried by {@link CopyEnqueue}, and runs through {@code enqueue.sql} when one of its ids exists.
     *
     * @param arrays each of the statement's array binds by name, one element per job
     */
    List<Created> enqueue(Map<String, Object[]> arrays) throws SQLException {
        try (Connection pooled = dataSource.getConnection()) {
            Connection c = driverConnection(pooled);
            if (arrays.get("ids").length >= COPY_MIN_BATCH) {
                Optional<List<Created>> copied = CopyEnqueue.enqueue(c, arrays);
                if (copied.isPresent()) {
                    return copied.get();
                }
            }
            return insert(c, arrays);
        }
    }

    private static List<Created> insert(Connection c, Map<String, Object[]> arrays) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(ENQUEUE.sql())) {
            for (Map.Entry<String, Object[]> e : arrays.entrySet()) {
                ENQUEUE.set(ps, e.getKey(), array(c, e.getValue()));
            }
            List<Created> created = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    created.add(new Created(rs.getString(1), rs.getString(2), rs.getLong(3), rs.getLong(4)));
                }
            }
            return created;
        }
    }

    /**
     * {@code reserve.sql}: one row per lease, or one row of nulls but the clock and the next run time. The statement
     * gets a token for each lease it may make, drawn here ({@link LeaseToken#randomBits}): 16 bytes each, one after
     * the other, as one {@code bytea}.
     */
    List<Reserved> reserve(String topic, boolean push, int max, long defaultLeaseMs, long expiresAfterMs)
            throws SQLException {
        try (Connection pooled = dataSource.getConnection();
             PreparedStatement ps = driverConnection(pooled).prepareStatement(RESERVE.sql())) {
            // Its rows in binary from the first execution on a connection (pgjdbc switches after 5 by itself): four
            // timestamps a job, which as text are parsed into dates and back
            ps.unwrap(PGStatement.class).setPrepareThreshold(-1);
            RESERVE.set(ps, "topic", topic);
            RESERVE.set(ps, "push", push);
            RESERVE.set(ps, "max", max);
            RESERVE.set(ps, "defaultLeaseMs", defaultLeaseMs);
            RESERVE.set(ps, "expiresAfterMs", expiresAfterMs);
            RESERVE.set(ps, "tokens", LeaseToken.randomBits(max));
            List<Reserved> rows = new ArrayList<>(max);
            try (ResultSet rs = ps.executeQuery()) {
                Rows.ReservedColumns columns = new Rows.ReservedColumns(rs);
                while (rs.next()) {
                    rows.add(Rows.reserved(rs, jobs, columns));
                }
            }
            return rows;
        }
    }

    /** {@code ack.sql}: one status name per lease, in order; {@code tokens} their values, 16 bytes each, in order. */
    List<String> ack(String[] topics, String[] ids, byte[] tokens, int historySize) throws SQLException {
        try (Connection pooled = dataSource.getConnection()) {
            return ack(driverConnection(pooled), topics, ids, tokens, historySize);
        }
    }

    private static List<String> ack(Connection c, String[] topics, String[] ids, byte[] tokens, int historySize)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(ACK.sql())) {
            ACK.set(ps, "topics", array(c, topics));
            ACK.set(ps, "ids", array(c, ids));
            ACK.set(ps, "tokens", tokens);
            ACK.set(ps, "historySize", historySize);
            List<String> statuses = new ArrayList<>(ids.length);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    statuses.add(rs.getString(1));
                }
            }
            return statuses;
        }
    }

    /** Tokens as {@code ack.sql} takes them: their {@value LeaseToken#BYTES} bytes, one token after the other. */
    static byte[] tokens(List<LeaseToken> tokens) {
        byte[] bits = new byte[tokens.size() * LeaseToken.BYTES];
        for (int i = 0; i < tokens.size(); i++) {
            System.arraycopy(tokens.get(i).bits(), 0, bits, i * LeaseToken.BYTES, LeaseToken.BYTES);
        }
        return bits;
    }

    /**
     * The driver's own connection behind the pool's: the pool hands out a proxy whose statements and result sets are
     * proxies too, each call a reflective {@code Method.invoke} (about a sixth of the client's CPU when reading a
     * reserve's rows). The pooled connection is still the one closed, which returns it to the pool; statements made
     * on the driver's connection are closed before that.
     */
    private static Connection driverConnection(Connection pooled) throws SQLException {
        return pooled.unwrap(BaseConnection.class);
    }

    /**
     * A typed Java array as a PostgreSQL array in binary form: {@code String[]} → {@code text[]}, {@code Long[]} →
     * {@code int8[]}, {@code Integer[]} → {@code int4[]}, {@code Boolean[]} → {@code bool[]} (nulls allowed).
     */
    private static Array array(Connection c, Object[] values) throws SQLException {
        String type;
        if (values instanceof String[]) {
            type = "text";
        } else if (values instanceof Long[]) {
            type = "int8";
        } else if (values instanceof Integer[]) {
            type = "int4";
        } else if (values instanceof Boolean[]) {
            type = "bool";
        } else {
            throw new IllegalArgumentException("no PostgreSQL array type for " + values.getClass().getSimpleName());
        }
        return c.createArrayOf(type, values);
    }
}
