package io.delayq.postgres;

import io.delayq.core.Delivery;
import io.delayq.core.Job;
import io.delayq.core.JobRef;
import io.delayq.core.LeaseInFlight;
import io.delayq.core.LeaseToken;
import io.delayq.core.NackOutcome;
import io.delayq.core.OutboxEntry;
import io.delayq.core.ReclaimedLeases;
import io.delayq.core.StoreStatus;
import io.delayq.core.TopicStats;
import io.delayq.core.TopicTimes;
import io.delayq.core.history.LatenessBuckets;
import io.delayq.core.history.TopicMinute;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.mapper.RowMapper;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Objects;
import java.util.UUID;

/** What the statements return, and how their rows are read (registered on the store's {@link Jdbi}). */
final class Rows {
    private Rows() {
    }

    /** A job {@code enqueue} created now. */
    record Created(String topic, String id, long runAt, long createdAt) {
    }

    /**
     * A row of {@code reserve}: a lease (id non-null), or only the clock and the lane's next run time. A leased row this
     * code cannot decode has no job but the reason ({@code unreadable}), so that it costs the other leases nothing.
     */
    record Reserved(String id, Job job, String unreadable, LeaseToken token, long deadline, long now, Long next,
                    int expired) {
    }

    /** {@code extend}'s answer. */
    record Extended(String status, Long deadlineMs) {
    }

    /** {@code cancel}'s or {@code reschedule}'s answer: the state the job was found in, and the job when changed. */
    record Targeted(String was, Job job) {
    }

    /** A stored job and the fingerprint of what its producer sent. */
    record Stored(Job job, String fingerprint) {
    }

    /** A topic's counters, summed over their shards, and its earliest run time (or null). */
    record Counts(long scheduled, long leased, long succeeded, long dead, Long nextRunAt) {
    }

    /** A bucket of the due forecast that has jobs. */
    record ForecastBucket(int bucket, long jobs) {
    }

    /**
     * A row of {@code list_jobs.sql}: the {@code n}-th job examined of {@code walked}, its position and id, and the job
     * when it matched the filters.
     */
    record Listed(long n, long walked, long positionMs, String id, Job job) {
    }

    static void register(Jdbi jdbi, JobRowMapper jobs) {
        jdbi.registerRowMapper(Listed.class, (rs, ctx) -> new Listed(rs.getLong("n"), rs.getLong("walked"),
                rs.getLong("pos_ms"), rs.getString("listed_id"), rs.getBoolean("hit") ? jobs.map(rs, ctx) : null));
        jdbi.registerRowMapper(ForecastBucket.class, (rs, ctx) -> new ForecastBucket(rs.getInt("bucket"),
                rs.getLong("jobs")));
        jdbi.registerRowMapper(LeaseInFlight.class, (rs, ctx) -> new LeaseInFlight(rs.getString("id"),
                rs.getBoolean("push") ? Delivery.PUSH : Delivery.PULL, rs.getInt("attempts"), rs.getLong("deadline_ms")));
        jdbi.registerRowMapper(TopicMinute.class, (rs, ctx) -> new TopicMinute(rs.getString("topic"),
                rs.getLong("minute_ms"), rs.getLong("enqueued"), rs.getLong("delivered"), rs.getLong("failed"),
                rs.getLong("dead"), rs.getLong("expired"), rs.getLong("no_retry"), lateness(rs)));
        jdbi.registerRowMapper(Job.class, jobs);
        jdbi.registerRowMapper(NackOutcome.class, (rs, ctx) ->
                new NackOutcome(StoreStatus.valueOf(rs.getString("status")), rs.getBoolean("expired")));
        jdbi.registerRowMapper(ReclaimedLeases.class, (rs, ctx) ->
                new ReclaimedLeases(rs.getInt("taken"), rs.getInt("expired"), rs.getInt("died")));
        jdbi.registerRowMapper(Extended.class, (rs, ctx) ->
                new Extended(rs.getString("status"), nullableLong(rs, "deadline_ms")));
        jdbi.registerRowMapper(Targeted.class, (rs, ctx) ->
                new Targeted(rs.getString("was"), rs.getString("id") == null ? null : jobs.map(rs, ctx)));
        jdbi.registerRowMapper(Stored.class, (rs, ctx) -> new Stored(jobs.map(rs, ctx), rs.getString("fingerprint")));
        jdbi.registerRowMapper(Counts.class, (rs, ctx) -> new Counts(rs.getLong("scheduled"), rs.getLong("leased"),
                rs.getLong("succeeded"), rs.getLong("dead"), nullableLong(rs, "next_run_at")));
        jdbi.registerRowMapper(TopicStats.class, (rs, ctx) -> new TopicStats(rs.getString("topic"),
                rs.getLong("scheduled"), rs.getLong("leased"), rs.getLong("dead"), rs.getLong("succeeded"),
                Objects.requireNonNullElse(nullableLong(rs, "next_run_at"), -1L)));
        jdbi.registerRowMapper(TopicTimes.class, (rs, ctx) -> new TopicTimes(rs.getString("topic"),
                Objects.requireNonNullElse(nullableLong(rs, "push_due_at"), -1L),
                Objects.requireNonNullElse(nullableLong(rs, "pull_due_at"), -1L),
                Objects.requireNonNullElse(nullableLong(rs, "lease_deadline"), -1L)));
        jdbi.registerRowMapper(OutboxEntry.class, (RowMapper<OutboxEntry>) (rs, ctx) -> {
            String seq = Long.toString(rs.getLong("seq"));
            try {
                return new OutboxEntry(seq, jobs.map(rs, ctx));
            } catch (RuntimeException e) {
                return OutboxEntry.unreadable(seq, new JobRef(rs.getString("topic"), rs.getString("id")),
                        jobs.rawRow(rs), String.valueOf(e.getMessage()));
            }
        });
    }

    /** Where the columns of {@code reserve}'s rows are, looked up once per result set. */
    record ReservedColumns(JobRowMapper.Columns job, int token, int deadline, int now, int next, int expired) {
        ReservedColumns(ResultSet rs) throws SQLException {
            this(new JobRowMapper.Columns(rs), rs.findColumn("lease_token"), rs.findColumn("lease_deadline"),
                    rs.findColumn("now_ms"), rs.findColumn("next_ms"), rs.findColumn("expired_n"));
        }
    }

    /** A row of {@code reserve} ({@link BatchTransitions#reserve}). */
    static Reserved reserved(ResultSet rs, JobRowMapper jobs, ReservedColumns c) throws SQLException {
        String id = rs.getString(c.job().id);
        Job job = null;
        String unreadable = null;
        if (id != null) {
            try {
                job = jobs.map(rs, c.job());
            } catch (RuntimeException e) {
                unreadable = String.valueOf(e.getMessage());
            }
        }
        long nextMs = rs.getLong(c.next());
        Long next = rs.wasNull() ? null : nextMs;
        UUID token = rs.getObject(c.token(), UUID.class);
        return new Reserved(id, job, unreadable, token == null ? null : LeaseToken.of(token),
                id == null ? 0 : JobRowMapper.millis(rs, c.deadline()), rs.getLong(c.now()), next,
                (int) rs.getLong(c.expired()));
    }

    /** A stored histogram as {@link LatenessBuckets#COUNT} counts (padded with zeros should it be shorter). */
    private static long[] lateness(ResultSet rs) throws SQLException {
        long[] counts = new long[LatenessBuckets.COUNT];
        java.sql.Array array = rs.getArray("lateness");
        if (array != null) {
            Long[] stored = (Long[]) array.getArray();
            for (int i = 0; i < Math.min(stored.length, counts.length); i++) {
                counts[i] = stored[i] == null ? 0 : stored[i];
            }
        }
        return counts;
    }

    private static Long nullableLong(ResultSet rs, String column) throws SQLException {
        long value = rs.getLong(column);
        return rs.wasNull() ? null : value;
    }
}
