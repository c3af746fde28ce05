package io.delayq.postgres;

import io.delayq.core.Job;
import io.delayq.core.LeaseInFlight;
import io.delayq.core.OutboxEntry;
import io.delayq.core.history.TopicMinute;
import io.delayq.postgres.Rows.Counts;
import io.delayq.postgres.Rows.ForecastBucket;
import io.delayq.postgres.Rows.Stored;
import org.jdbi.v3.sqlobject.customizer.Bind;
import org.jdbi.v3.sqlobject.locator.UseClasspathSqlLocator;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;

import java.util.List;
import java.util.Optional;

/**
 * Reads, settings, the outbox, broadcasts and the operator views: the store's short statements, each an index lookup
 * or O(batch). The longer ones are in {@code io/delayq/postgres/JobQueries/<method>.sql}.
 */
interface JobQueries {

    @SqlQuery("SELECT * FROM delayq_jobs WHERE topic = :topic AND id = :id")
    Optional<Job> find(@Bind("topic") String topic, @Bind("id") String id);

    /** The jobs of the given (topic, id) pairs that exist, with their fingerprints. */
    @SqlQuery("SELECT j.* FROM delayq_jobs j JOIN unnest(:topics::text[], :ids::text[]) AS r(topic, id)"
            + " ON j.topic = r.topic AND j.id = r.id")
    List<Stored> findStored(@Bind("topics") String[] topics, @Bind("ids") String[] ids);

    /** The first entry of the lane's due index: an index lookup, whatever the topic's size. */
    @SqlQuery("SELECT delayq_ms(min(run_at)) FROM delayq_jobs"
            + " WHERE topic = :topic AND push = :push AND state = 'scheduled'")
    Long nextDueAt(@Bind("topic") String topic, @Bind("push") boolean push);

    @SqlQuery("SELECT delayq_ms(min(lease_deadline)) FROM delayq_jobs WHERE topic = :topic AND state = 'leased'")
    Long nextLeaseDeadline(@Bind("topic") String topic);

    @SqlQuery("SELECT topic FROM delayq_topics")
    List<String> topics();

    /** Registers topics before their jobs are written, so a crash in between never hides a topic that has jobs. */
    @SqlUpdate("INSERT INTO delayq_topics (topic) SELECT unnest(:topics::text[]) ON CONFLICT (topic) DO NOTHING")
    void registerTopics(@Bind("topics") String[] topics);

    /** The counters summed over their shards, and the earliest run time of either lane: one round trip. */
    @SqlQuery("SELECT coalesce(sum(scheduled), 0) AS scheduled, coalesce(sum(leased), 0) AS leased,"
            + " coalesce(sum(succeeded), 0) AS succeeded, coalesce(sum(dead), 0) AS dead,"
            + " delayq_ms(least("
            + "(SELECT min(run_at) FROM delayq_jobs WHERE topic = :topic AND push AND state = 'scheduled'),"
            + "(SELECT min(run_at) FROM delayq_jobs WHERE topic = :topic AND NOT push AND state = 'scheduled')))"
            + " AS next_run_at"
            + " FROM delayq_counters WHERE topic = :topic")
    Counts counts(@Bind("topic") String topic);

    @SqlQuery("SELECT settings::text FROM delayq_topics WHERE topic = :topic AND settings IS NOT NULL")
    Optional<String> settings(@Bind("topic") String topic);

    @SqlUpdate("INSERT INTO delayq_topics (topic, settings) VALUES (:topic, :settings::jsonb)"
            + " ON CONFLICT (topic) DO UPDATE SET settings = excluded.settings")
    void putSettings(@Bind("topic") String topic, @Bind("settings") String settingsJson);

    /**
     * Compare-and-set: writes the settings only if they are still {@code expected} (JSON as read by {@link #settings},
     * or null when there were none). Present when written.
     */
    @SqlQuery("INSERT INTO delayq_topics AS t (topic, settings) VALUES (:topic, :settings::jsonb)"
            + " ON CONFLICT (topic) DO UPDATE SET settings = excluded.settings"
            + " WHERE t.settings IS NOT DISTINCT FROM :expected::jsonb RETURNING true")
    Optional<Boolean> compareAndSetSettings(@Bind("topic") String topic, @Bind("expected") String expectedJson,
                                            @Bind("settings") String settingsJson);

    @SqlQuery("SELECT * FROM delayq_outbox ORDER BY seq LIMIT :max")
    List<OutboxEntry> readOutbox(@Bind("max") int max);

    @SqlUpdate("DELETE FROM delayq_outbox WHERE seq = ANY(:seqs::bigint[])")
    int deleteOutbox(@Bind("seqs") Long[] seqs);

    /** Moves outbox rows, whole, to {@code delayq_quarantine} with a reason each; one statement. */
    @SqlUpdate("WITH moved AS (DELETE FROM delayq_outbox o"
            + " USING unnest(:seqs::bigint[], :reasons::text[]) AS r(seq, reason) WHERE o.seq = r.seq"
            + " RETURNING o.topic, o.id, r.reason, to_jsonb(o) AS entry)"
            + " INSERT INTO delayq_quarantine (origin, topic, id, reason, entry)"
            + " SELECT 'outbox', topic, id, reason, entry FROM moved")
    int quarantineOutbox(@Bind("seqs") Long[] seqs, @Bind("reasons") String[] reasons);

    /** Exact, like the outbox size: the quarantine holds only what could not be read. */
    @SqlQuery("SELECT count(*) FROM delayq_quarantine")
    long quarantineSize();

    /** Exact: the outbox is small unless the archive has been down, and this is read by a gauge, not per job. */
    @SqlQuery("SELECT count(*) FROM delayq_outbox")
    long outboxSize();

    @SqlQuery("SELECT delayq_ms(delayq_now())")
    long now();

    /** Stores the job and NOTIFYs its reference in one statement (a NOTIFY carries at most 8000 bytes). */
    @SqlQuery("WITH b AS (INSERT INTO delayq_broadcasts (job) VALUES (:job) RETURNING seq)"
            + " SELECT seq FROM b, pg_notify('delayq_broadcast', b.seq::text) AS n")
    long publishBroadcast(@Bind("job") String jobJson);

    /** Broadcasts are read by every instance within milliseconds; five minutes is slack for slow listeners. */
    @SqlUpdate("DELETE FROM delayq_broadcasts WHERE seq IN (SELECT seq FROM delayq_broadcasts"
            + " WHERE sent_at < delayq_now() - interval '5 minutes' ORDER BY seq LIMIT :batch)")
    int reapBroadcasts(@Bind("batch") int batch);

    // ---------------------------------------------------------------- operator views

    @SqlQuery
    @UseClasspathSqlLocator
    List<ForecastBucket> dueForecast(@Bind("topic") String topic, @Bind("fromMs") long fromMs, @Bind("toMs") long toMs,
                                     @Bind("bucketMs") long bucketMs);

    /** The lease index in its order: O(log N + limit). */
    @SqlQuery("SELECT id, push, attempts, delayq_ms(lease_deadline) AS deadline_ms FROM delayq_jobs"
            + " WHERE topic = :topic AND state = 'leased' ORDER BY lease_deadline LIMIT :limit")
    List<LeaseInFlight> leasesInFlight(@Bind("topic") String topic, @Bind("limit") int limit);

    @SqlUpdate
    @UseClasspathSqlLocator
    void addHistory(@Bind("topics") String[] topics, @Bind("minutes") Long[] minutes, @Bind("enqueued") Long[] enqueued,
                    @Bind("delivered") Long[] delivered, @Bind("failed") Long[] failed, @Bind("dead") Long[] dead,
                    @Bind("lateness") Long[] lateness, @Bind("buckets") int buckets);

    /** A range of the primary key, oldest first. */
    @SqlQuery("SELECT topic, delayq_ms(minute) AS minute_ms, enqueued, delivered, failed, dead, lateness"
            + " FROM delayq_topic_history"
            + " WHERE topic = :topic AND minute >= delayq_ts(:fromMs) AND minute < delayq_ts(:toMs) ORDER BY minute")
    List<TopicMinute> history(@Bind("topic") String topic, @Bind("fromMs") long fromMs, @Bind("toMs") long toMs);
}
