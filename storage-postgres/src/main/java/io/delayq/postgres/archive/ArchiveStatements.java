package io.delayq.postgres.archive;

import io.delayq.core.Job;
import io.delayq.core.archive.DeadLetter;
import org.jdbi.v3.sqlobject.customizer.Bind;
import org.jdbi.v3.sqlobject.customizer.BindMap;
import org.jdbi.v3.sqlobject.customizer.Define;
import org.jdbi.v3.sqlobject.locator.UseClasspathSqlLocator;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The archive's statements, one each, in {@code io/delayq/postgres/archive/ArchiveStatements/<method>.sql}; each file's
 * header names its binds, what it returns and the index it uses. Arrays carry batches (one element per job).
 */
@UseClasspathSqlLocator
interface ArchiveStatements {

    /** How many rows were written. */
    @SqlQuery
    int write(@Bind("deadKeys") String[] deadKeys, @Bind("deadTopics") String[] deadTopics,
              @Bind("deadIds") String[] deadIds, @Bind("deadAtMs") Long[] deadAtMs, @Bind("deadJobs") String[] deadJobs,
              @Bind("deadPayloads") String[] deadPayloads,
              @Bind("doneKeys") String[] doneKeys, @Bind("doneTopics") String[] doneTopics,
              @Bind("doneIds") String[] doneIds, @Bind("doneStates") String[] doneStates,
              @Bind("doneAtMs") Long[] doneAtMs, @Bind("doneJobs") String[] doneJobs,
              @Bind("donePayloads") String[] donePayloads, @Bind("completedRetentionMs") long completedRetentionMs);

    @SqlQuery
    Optional<Job> find(@Bind("topic") String topic, @Bind("id") String id);

    @SqlQuery
    List<DeadLetter> deadLetters(@Define("filter") String conditions, @BindMap Map<String, Object> filterBinds,
                                 @Bind("limit") int limit);

    @SqlQuery
    Optional<DeadLetter> deadLetterOfJob(@Bind("topic") String topic, @Bind("id") String id);

    @SqlQuery
    Optional<DeadLetter> deadLetter(@Bind("key") String key);

    /** 1 when recorded. */
    @SqlUpdate
    int recordReplay(@Bind("key") String key, @Bind("expected") int expectedReplayCount,
                     @Bind("replay") String replayJson);

    /** How many letters became tombstones. */
    @SqlUpdate
    int purge(@Define("filter") String conditions, @BindMap Map<String, Object> filterBinds,
              @Bind("tombstoneRetentionMs") long tombstoneRetentionMs, @Bind("batch") int batch);

    /** How many rows were dropped; {@code nowMs} null = the database's now. */
    @SqlUpdate
    int reapCompleted(@Bind("nowMs") Long nowMs, @Bind("batch") int batch);

    @SqlUpdate
    int reapTombstones(@Bind("nowMs") Long nowMs, @Bind("batch") int batch);

    @SqlQuery
    long now();
}
