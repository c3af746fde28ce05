package io.delayq.postgres;

import io.delayq.postgres.Rows.Created;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyIn;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * An enqueue of a batch by {@code COPY … FROM STDIN (FORMAT binary)} straight into {@code delayq_jobs}: the optimistic
 * path for batches of new ids. {@code INSERT … ON CONFLICT DO NOTHING} pays, for every row, a primary-key probe before
 * the insert, a speculative-insertion token and the WAL record that confirms it, and the executor's work on
 * {@code unnest}; {@code COPY} writes rows a page at a time (one WAL record per page) and checks uniqueness only in the
 * index insert itself. It cannot skip a row whose id exists, so a batch that contains one fails as a whole (unique
 * violation), the transaction is rolled back, and the caller runs the batch through {@code enqueue.sql}, which answers
 * repeats and conflicts as always: a repeated batch costs one failed COPY more, usually at its first row.
 *
 * <p>One short transaction, so nothing of it is seen or kept unless all of it commits: {@code enqueue_copy_open.sql}
 * reads the database's clock (once, for every job of the batch: run times are that clock plus the delay, or the given
 * time) and each lane's earliest run time before the batch; the COPY ({@code enqueue_copy.sql});
 * {@code enqueue_copy_close.sql} adds the counters and sends the wake-ups of the lanes whose earliest run time moved earlier; commit (durable, as every enqueue).
 *
 * <p>The rows written are exactly {@code enqueue.sql}'s: the same columns from the same binds (a bind this class does
 * not write is refused, so a column added to {@code enqueue.sql} alone fails every batch enqueue in the tests), and
 * {@code CopyEnqueueTest} compares the two paths' rows column by column.
 */
final class CopyEnqueue {
    /** The binds {@link #encode} writes: {@code enqueue.sql}'s, every one of them. */
    static final Set<String> BINDS = Set.of("topics", "ids", "push", "delayMs", "runAtMs", "maxAttempts", "fingerprints",
            "timeoutMs", "broadcast", "callbacks", "backoffs", "payloads", "traceparents", "tracestates", "onDeads",
            "expiresAtMs");
    private static final NamedSql COPY = NamedSql.load("enqueue_copy");
    private static final short FIELDS = 17;
    private static final NamedSql OPEN = NamedSql.load("enqueue_copy_open");
    private static final NamedSql CLOSE = NamedSql.load("enqueue_copy_close");
    private static final String UNIQUE_VIOLATION = "23505";
    /** PostgreSQL's timestamps count microseconds from 2000-01-01 UTC. */
    private static final long POSTGRES_EPOCH_MS = 946_684_800_000L;
    private static final byte[] HEADER = {'P', 'G', 'C', 'O', 'P', 'Y', '\n', (byte) 0xff, '\r', '\n', 0,
        0, 0, 0, 0, 0, 0, 0, 0};
    private static final byte[] SCHEDULED = "scheduled".getBytes(StandardCharsets.US_ASCII);
    private static final byte JSONB_VERSION = 1;
    /** Run times this class writes itself (years 1 to 9999); others go through {@code enqueue.sql}. */
    private static final long MIN_MS = -62_135_596_800_000L;
    private static final long MAX_MS = 253_402_300_799_999L;

    private CopyEnqueue() {
    }

    /**
     * Runs the transaction on {@code c} (autocommit is restored before it returns).
     *
     * @param arrays {@code enqueue.sql}'s binds, one element per job (ids distinct per topic, sorted by topic and id)
     * @return every job, created; empty when one of the ids exists or a run time is outside years 1 to 9999 (nothing
     *         was written)
     */
    static Optional<List<Created>> enqueue(Connection c, Map<String, Object[]> arrays) throws SQLException {
        if (!BINDS.equals(arrays.keySet())) {
            throw new IllegalStateException("the COPY enqueue writes " + BINDS + ", enqueue.sql binds "
                    + arrays.keySet());
        }
        String[] topics = (String[]) arrays.get("topics");
        Boolean[] push = (Boolean[]) arrays.get("push");
        Long[] delayMs = (Long[]) arrays.get("delayMs");
        Long[] runAtMs = (Long[]) arrays.get("runAtMs");
        c.setAutoCommit(false);
        try {
            Map<Lane, Long> before = new HashMap<>();
            long nowMs = open(c, topics, push, before);
            long[] runAt = new long[topics.length];
            for (int k = 0; k < runAt.length; k++) {
                runAt[k] = delayMs[k] != null ? nowMs + delayMs[k] : runAtMs[k];
                if (runAt[k] < MIN_MS || runAt[k] > MAX_MS) {
                    return Optional.empty(); // enqueue.sql says what PostgreSQL makes of such a time
                }
            }
            try {
                CopyIn copy = c.unwrap(PGConnection.class).getCopyAPI().copyIn(COPY.sql());
                try {
                    Buffer rows = encode(arrays, runAt, nowMs);
                    copy.writeToCopy(rows.data, 0, rows.size);
                    copy.endCopy();
                } finally {
                    if (copy.isActive()) {
                        copy.cancelCopy();
                    }
                }
            } catch (SQLException e) {
                if (UNIQUE_VIOLATION.equals(e.getSQLState())) {
                    c.rollback();
                    return Optional.empty();
                }
                throw e;
            }
            close(c, topics, push, runAt, before);
            c.commit();
            List<Created> created = new ArrayList<>(topics.length);
            String[] ids = (String[]) arrays.get("ids");
            for (int k = 0; k < topics.length; k++) {
                created.add(new Created(topics[k], ids[k], runAt[k], nowMs));
            }
            return Optional.of(created);
        } finally {
            if (!c.getAutoCommit()) {
                try {
                    c.rollback(); // nothing once committed; undoes a failure's half
                } finally {
                    c.setAutoCommit(true);
                }
            }
        }
    }

    private record Lane(String topic, boolean push) {
    }

    /** The clock, and each lane's earliest scheduled run time into {@code before} (lanes without one: absent). */
    private static long open(Connection c, String[] topics, Boolean[] push, Map<Lane, Long> before)
            throws SQLException {
        Set<Lane> lanes = new LinkedHashSet<>();
        for (int k = 0; k < topics.length; k++) {
            lanes.add(new Lane(topics[k], push[k]));
        }
        try (PreparedStatement ps = c.prepareStatement(OPEN.sql())) {
            OPEN.set(ps, "topics", c.createArrayOf("text", lanes.stream().map(Lane::topic).toArray(String[]::new)));
            OPEN.set(ps, "push", c.createArrayOf("bool", lanes.stream().map(Lane::push).toArray(Boolean[]::new)));
            long nowMs = 0;
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    nowMs = rs.getLong(1);
                    long first = rs.getLong(4);
                    if (!rs.wasNull()) {
                        before.put(new Lane(rs.getString(2), rs.getBoolean(3)), first);
                    }
                }
            }
            return nowMs;
        }
    }

    /** Counters per topic, and a wake-up per lane whose earliest run time moved earlier (as enqueue.sql's). */
    private static void close(Connection c, String[] topics, Boolean[] push, long[] runAt, Map<Lane, Long> before)
            throws SQLException {
        Map<String, Long> counts = new TreeMap<>();
        Map<Lane, Long> firsts = new LinkedHashMap<>();
        for (int k = 0; k < topics.length; k++) {
            counts.merge(topics[k], 1L, Long::sum);
            firsts.merge(new Lane(topics[k], push[k]), runAt[k], Math::min);
        }
        List<String> wakes = new ArrayList<>();
        firsts.forEach((lane, first) -> {
            Long was = before.get(lane);
            if (was == null || first < was) {
                wakes.add(lane.topic() + "\n" + (lane.push() ? "PUSH" : "PULL") + "\n" + first);
            }
        });
        try (PreparedStatement ps = c.prepareStatement(CLOSE.sql())) {
            CLOSE.set(ps, "topics", c.createArrayOf("text", counts.keySet().toArray(String[]::new)));
            CLOSE.set(ps, "counts", c.createArrayOf("int8", counts.values().toArray(Long[]::new)));
            CLOSE.set(ps, "wakes", c.createArrayOf("text", wakes.toArray(String[]::new)));
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
            }
        }
    }

    /** The rows in COPY's binary format, in the column order of {@code enqueue_copy.sql}. */
    private static Buffer encode(Map<String, Object[]> arrays, long[] runAt, long nowMs) {
        String[] topics = (String[]) arrays.get("topics");
        String[] ids = (String[]) arrays.get("ids");
        Boolean[] push = (Boolean[]) arrays.get("push");
        Integer[] maxAttempts = (Integer[]) arrays.get("maxAttempts");
        String[] fingerprints = (String[]) arrays.get("fingerprints");
        Long[] timeoutMs = (Long[]) arrays.get("timeoutMs");
        Boolean[] broadcast = (Boolean[]) arrays.get("broadcast");
        String[] callbacks = (String[]) arrays.get("callbacks");
        String[] backoffs = (String[]) arrays.get("backoffs");
        String[] payloads = (String[]) arrays.get("payloads");
        String[] traceparents = (String[]) arrays.get("traceparents");
        String[] tracestates = (String[]) arrays.get("tracestates");
        String[] onDeads = (String[]) arrays.get("onDeads");
        Long[] expiresAtMs = (Long[]) arrays.get("expiresAtMs");
        Buffer out = new Buffer(topics.length * 512);
        out.bytes(HEADER);
        for (int k = 0; k < topics.length; k++) {
            out.int16(FIELDS);
            out.text(topics[k]);
            out.text(ids[k]);
            out.field(SCHEDULED);
            out.bool(push[k]);
            out.timestamp(runAt[k]);
            out.int4(maxAttempts[k]);
            out.timestamp(nowMs);
            out.text(fingerprints[k]);
            out.int8(timeoutMs[k]);
            out.bool(broadcast[k]);
            out.jsonb(callbacks[k]);
            out.jsonb(backoffs[k]);
            out.text(payloads[k]);
            out.text(traceparents[k]);
            out.text(tracestates[k]);
            out.jsonb(onDeads[k]);
            if (expiresAtMs[k] == null) {
                out.int32(-1);
            } else {
                out.timestamp(expiresAtMs[k]);
            }
        }
        out.int16((short) -1);
        return out;
    }

    /** A growing byte array with COPY's big-endian field encodings; a null value is length -1. */
    private static final class Buffer {
        private byte[] data;
        private int size;

        Buffer(int capacity) {
            data = new byte[capacity];
        }

        void bytes(byte[] b) {
            ensure(b.length);
            System.arraycopy(b, 0, data, size, b.length);
            size += b.length;
        }

        void int16(short v) {
            ensure(2);
            data[size++] = (byte) (v >>> 8);
            data[size++] = (byte) v;
        }

        void int32(int v) {
            ensure(4);
            data[size++] = (byte) (v >>> 24);
            data[size++] = (byte) (v >>> 16);
            data[size++] = (byte) (v >>> 8);
            data[size++] = (byte) v;
        }

        void int64(long v) {
            int32((int) (v >>> 32));
            int32((int) v);
        }

        void field(byte[] value) {
            int32(value.length);
            bytes(value);
        }

        void text(String s) {
            if (s == null) {
                int32(-1);
            } else {
                field(s.getBytes(StandardCharsets.UTF_8));
            }
        }

        void jsonb(String json) {
            if (json == null) {
                int32(-1);
            } else {
                byte[] text = json.getBytes(StandardCharsets.UTF_8);
                int32(text.length + 1);
                ensure(1);
                data[size++] = JSONB_VERSION;
                bytes(text);
            }
        }

        void bool(Boolean b) {
            if (b == null) {
                int32(-1);
            } else {
                int32(1);
                ensure(1);
                data[size++] = (byte) (b ? 1 : 0);
            }
        }

        void int4(Integer v) {
            if (v == null) {
                int32(-1);
            } else {
                int32(4);
                int32(v);
            }
        }

        void int8(Long v) {
            if (v == null) {
                int32(-1);
            } else {
                int32(8);
                int64(v);
            }
        }

        /** A timestamptz from epoch ms (exact: µs since 2000-01-01 UTC). */
        void timestamp(long epochMs) {
            int32(8);
            int64((epochMs - POSTGRES_EPOCH_MS) * 1000L);
        }

        private void ensure(int more) {
            if (size + more > data.length) {
                data = Arrays.copyOf(data, Math.max(data.length * 2, size + more));
            }
        }
    }
}
