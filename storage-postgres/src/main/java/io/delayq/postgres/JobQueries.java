package io.delayq.postgres;

import io.delayq.core.Job;
import io.delayq.core.LeaseInFlight;
import io.delayq.core.OutboxEntry;
import io.delayq.core.TopicStats;
import io.delayq.core.TopicTimes;
import io.delayq.core.history.TopicMinute;
import io.delayq.postgres.Rows.Counts;
import io.delayq.postgres.Rows.ForecastBucket;
import io.delayq.postgres.Rows.Listed;
import io.delayq.postgres.Rows.Stored;
import org.jdbi.v3.core.mapper.reflect.ColumnName;
import org.jdbi.v3.sqlobject.config.RegisterConstructorMapper;
import org.jdbi.v3.sqlobject.customizer.Bind;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;

import java.util.List;
import java.util.Optional;

/**
 * Reads, settings, the outbox, broadcasts and the operator views: the store's short statements, each an index lookup
 * or O(batch), one file each in {@code io/delayq/postgres/sql/} ({@link StatementFiles}) whose header names its binds
 * and what it returns.
 */
interface JobQueries {

    @SqlQuery("find")
    Optional<Job> find(@Bind("topic") String topic, @Bind("id") String id);

    @SqlQuery("find_stored")
    List<Stored> findStored(@Bind("topics") String[] topics, @Bind("ids") String[] ids);

    @SqlQuery("next_due_at")
    Long nextDueAt(@Bind("topic") String topic, @Bind("push") boolean push);

    @SqlQuery("next_lease_deadline")
    Long nextLeaseDeadline(@Bind("topic") String topic);

    /** One row per topic asked. */
    @SqlQuery("times_many")
    List<TopicTimes> timesOf(@Bind("topics") String[] topics);

    @SqlQuery("topics")
    List<String> topics();

    @SqlUpdate("register_topics")
    void registerTopics(@Bind("topics") String[] topics);

    @SqlQuery("topics_page")
    List<String> topics(@Bind("after") String after, @Bind("limit") int limit);

    /** The names asked that are registered topics, in no order. */
    @SqlQuery("topics_among")
    List<String> topicsAmong(@Bind("topics") String[] topics);

    /** {@code topics_starting_with.sql}: {@code after} {@code ""} from the first. */
    @SqlQuery("topics_starting_with")
    List<String> topicsStartingWith(@Bind("prefix") String prefix, @Bind("upper") String upper,
                                    @Bind("after") String after, @Bind("limit") int limit);

    /** Only topics with settings have a row: topic, settings (JSON text). */
    @SqlQuery("settings_many")
    @RegisterConstructorMapper(TopicSettingsRow.class)
    List<TopicSettingsRow> settingsOf(@Bind("topics") String[] topics);

    /** A row of {@code settings_many}. */
    record TopicSettingsRow(@ColumnName("topic") String topic, @ColumnName("settings") String settings) {
    }

    /** Present when the topic was forgotten. */
    @SqlQuery("topic_delete")
    Optional<String> deleteTopic(@Bind("topic") String topic);

    /** Present (whether idle for long enough) when the topic is registered. */
    @SqlQuery("topic_mark_idle")
    Optional<Boolean> markIdle(@Bind("topic") String topic, @Bind("idleMs") long idleMs);

    @SqlQuery("stats")
    Counts stats(@Bind("topic") String topic);

    /** Only topics with counters have a row. */
    @SqlQuery("stats_many")
    List<TopicStats> statsOf(@Bind("topics") String[] topics);

    @SqlQuery("read_settings")
    Optional<String> readSettings(@Bind("topic") String topic);

    @SqlUpdate("put_settings")
    void putSettings(@Bind("topic") String topic, @Bind("settings") String settingsJson);

    /**
     * Compare-and-set: writes the settings only if they are still {@code expected} (JSON as read by
     * {@link #readSettings}, or null when there were none). Present when written.
     */
    @SqlQuery("settings")
    Optional<Boolean> compareAndSetSettings(@Bind("topic") String topic, @Bind("expected") String expectedJson,
                                            @Bind("settings") String settingsJson);

    @SqlQuery("read_outbox")
    List<OutboxEntry> readOutbox(@Bind("max") int max);

    @SqlUpdate("delete_outbox")
    int deleteOutbox(@Bind("seqs") Long[] seqs);

    @SqlUpdate("quarantine")
    int quarantineOutbox(@Bind("seqs") Long[] seqs, @Bind("reasons") String[] reasons);

    @SqlQuery("quarantine_size")
    long quarantineSize();

    @SqlQuery("outbox_size")
    long outboxSize();

    @SqlQuery("now")
    long now();

    @SqlQuery("publish_broadcast")
    long publishBroadcast(@Bind("job") String jobJson);

    @SqlUpdate("trim_broadcasts")
    int trimBroadcasts(@Bind("batch") int batch);

    // ---------------------------------------------------------------- operator views

    @SqlQuery("due_forecast")
    List<ForecastBucket> dueForecast(@Bind("topic") String topic, @Bind("fromMs") long fromMs, @Bind("toMs") long toMs,
                                     @Bind("bucketMs") long bucketMs);

    @SqlQuery("leases")
    List<LeaseInFlight> leasesInFlight(@Bind("topic") String topic, @Bind("limit") int limit);

    @SqlUpdate("add_history")
    void addHistory(@Bind("topics") String[] topics, @Bind("minutes") Long[] minutes, @Bind("enqueued") Long[] enqueued,
                    @Bind("delivered") Long[] delivered, @Bind("failed") Long[] failed, @Bind("dead") Long[] dead,
                    @Bind("expired") Long[] expired, @Bind("noRetry") Long[] noRetry, @Bind("lateness") Long[] lateness,
                    @Bind("buckets") int buckets);

    @SqlQuery("history")
    List<TopicMinute> history(@Bind("topic") String topic, @Bind("fromMs") long fromMs, @Bind("toMs") long toMs);

    @SqlQuery("list_jobs")
    List<Listed> listJobs(@Bind("topic") String topic, @Bind("pending") boolean pending,
                          @Bind("scheduled") boolean scheduled, @Bind("leased") boolean leased,
                          @Bind("states") String[] states, @Bind("afterMs") long afterMs,
                          @Bind("afterId") String afterId, @Bind("toMs") long toMs, @Bind("cap") int cap,
                          @Bind("limit") int limit, @Bind("prefix") String prefix,
                          @Bind("payloadText") String payloadText, @Bind("payloadLiteral") String payloadLiteral);
}
