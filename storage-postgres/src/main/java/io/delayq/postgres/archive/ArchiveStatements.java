package io.delayq.postgres.archive;

import io.delayq.core.Job;
import io.delayq.core.archive.DeadLetter;
import io.delayq.core.archive.FailureGroup;
import org.jdbi.v3.sqlobject.customizer.Bind;
import org.jdbi.v3.sqlobject.customizer.BindMap;
import org.jdbi.v3.sqlobject.customizer.Define;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The archive's statements, one each, in {@code io/delayq/postgres/archive/sql/<name>.sql}
 * ({@link io.delayq.postgres.StatementFiles}); each file's header names its binds, what it returns and the index it
 * uses. Arrays carry batches (one element per job).
 */
interface ArchiveStatements {

    /** How many rows were written. */
    @SqlQuery("write")
    int write(@Bind("deadKeys") String[] deadKeys, @Bind("deadTopics") String[] deadTopics,
              @Bind("deadIds") String[] deadIds, @Bind("deadAtMs") Long[] deadAtMs, @Bind("deadJobs") String[] deadJobs,
              @Bind("deadPayloads") String[] deadPayloads, @Bind("deadSignatureIds") String[] deadSignatureIds,
              @Bind("deadKinds") String[] deadKinds, @Bind("deadMessages") String[] deadMessages,
              @Bind("deadHosts") String[] deadHosts, @Bind("deadStatuses") Integer[] deadStatuses,
              @Bind("deadNoticed") Boolean[] deadNoticed,
              @Bind("doneKeys") String[] doneKeys, @Bind("doneTopics") String[] doneTopics,
              @Bind("doneIds") String[] doneIds, @Bind("doneStates") String[] doneStates,
              @Bind("doneAtMs") Long[] doneAtMs, @Bind("doneJobs") String[] doneJobs,
              @Bind("donePayloads") String[] donePayloads, @Bind("completedRetentionMs") long completedRetentionMs);

    @SqlQuery("find")
    Optional<Job> find(@Bind("topic") String topic, @Bind("id") String id);

    @SqlQuery("dead_letters")
    List<DeadLetter> deadLetters(@Define("filter") String conditions, @BindMap Map<String, Object> filterBinds,
                                 @Bind("limit") int limit);

    @SqlQuery("count_dead_letters")
    long countDeadLetters(@Define("filter") String conditions, @BindMap Map<String, Object> filterBinds);

    @SqlQuery("failure_groups")
    List<FailureGroup> failureGroups(@Define("filter") String conditions, @BindMap Map<String, Object> filterBinds,
                                     @Bind("hourAgoMs") long hourAgoMs, @Bind("nowMs") long nowMs,
                                     @Bind("limit") int limit);

    @SqlQuery("unsigned_dead_letters")
    List<ArchiveRows.UnsignedLetter> unsignedDeadLetters(@Bind("after") String after, @Bind("batch") int batch);

    /** How many letters were signed. */
    @SqlUpdate("sign")
    int sign(@Bind("keys") String[] keys, @Bind("signatureIds") String[] signatureIds, @Bind("kinds") String[] kinds,
             @Bind("messages") String[] messages, @Bind("hosts") String[] hosts,
             @Bind("statuses") Integer[] statuses);

    @SqlQuery("dead_letter_of_job")
    Optional<DeadLetter> deadLetterOfJob(@Bind("topic") String topic, @Bind("id") String id);

    @SqlQuery("dead_letter")
    Optional<DeadLetter> deadLetter(@Bind("key") String key);

    /** 1 when recorded. */
    @SqlUpdate("record_replay")
    int recordReplay(@Bind("key") String key, @Bind("expected") int expectedReplayCount,
                     @Bind("replay") String replayJson);

    @SqlQuery("due_notices")
    List<DeadLetter> dueNotices(@Bind("nowMs") long nowMs, @Bind("limit") int limit);

    /** 1 when recorded. */
    @SqlUpdate("record_notice")
    int recordNotice(@Bind("key") String key, @Bind("expected") int expectedAttempts, @Bind("state") String state,
                     @Bind("attempts") int attempts, @Bind("nextAttemptAtMs") long nextAttemptAtMs,
                     @Bind("deliveredAtMs") Long deliveredAtMs, @Bind("lastError") String lastError,
                     @Bind("lastStatus") Integer lastStatus);

    /** How many letters became tombstones. */
    @SqlUpdate("purge")
    int purge(@Define("filter") String conditions, @BindMap Map<String, Object> filterBinds,
              @Bind("tombstoneRetentionMs") long tombstoneRetentionMs, @Bind("batch") int batch);

    /** How many rows were dropped; {@code nowMs} null = the database's now. */
    @SqlUpdate("reap_completed")
    int reapCompleted(@Bind("nowMs") Long nowMs, @Bind("batch") int batch);

    @SqlUpdate("reap_tombstones")
    int reapTombstones(@Bind("nowMs") Long nowMs, @Bind("batch") int batch);

    @SqlQuery("now")
    long now();
}
