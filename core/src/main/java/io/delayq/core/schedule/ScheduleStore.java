package io.delayq.core.schedule;

import io.delayq.core.NewJob;

import java.util.Map;
import java.util.List;
import java.util.Optional;

/**
 * The recurring schedules of every topic, kept in the job store so that every instance sees the same schedules and
 * the same cursors (see {@link ScheduleRecord}). Every write is one atomic store operation (one Lua script, one SQL
 * statement).
 *
 * <p>Exactly once: a scheduler reads a due schedule, works out its fire from the cursor it read, and calls
 * {@link #advance} with that cursor. The store applies the fire — moves the cursor, records the fire, enqueues the job
 * — only if the cursor is still the one read, all in one operation: of two instances firing the same time one wins and
 * the other is answered {@link Advance#CONFLICT}; an instance that dies before its call changed nothing, and the next
 * reader fires it. Nothing depends on the job still being in the store afterwards.
 */
public interface ScheduleStore {
    /** How many fires a schedule's history keeps. */
    int MAX_FIRES = 20;

    /**
     * Creates or replaces a schedule: its definition and due time are replaced and its cursor set to the store's
     * clock (a PUT replaces the schedule, so fires before it are not made up); its creation time and its fires are
     * kept.
     *
     * @param dueAtMs when its first fire is due, or {@code null}
     * @return the schedule as stored
     */
    ScheduleRecord put(String topic, String name, String definition, Long dueAtMs);

    Optional<ScheduleRecord> get(String topic, String name);

    /** A topic's schedules in name order, after {@code afterName} ({@code null}: from the first), at most {@code limit}. */
    List<ScheduleRecord> list(String topic, String afterName, int limit);

    /**
     * How many schedules each topic holds whose name starts with {@code prefix}, for the topics that hold any, in name
     * order (the map's iteration order; names compare by code point, as in
     * {@link io.delayq.core.JobStore#topicsStartingWith}): those after {@code after} (exclusive; {@code null}: from the
     * first), at most {@code limit}. A tenant's schedules count against its pending-jobs quota and may be in topics
     * that never held a job yet; they are read by its patterns as its topics are: a wildcard's prefix page by page, a
     * topic name by its first answer. Both stores read an index of the topics with schedules by name: the cost is the
     * page, not every topic with schedules (one statement on PostgreSQL; on Redis one range read of the index, then
     * one count per topic of the page, pipelined).
     *
     * @param prefix not empty; every character means itself
     */
    Map<String, Long> counts(String prefix, String after, int limit);

    /** Deletes a schedule (its pending jobs stay); whether it existed. */
    boolean delete(String topic, String name);

    /** Schedules of any topic whose next fire is due at or before {@code nowMs}, earliest first, at most {@code limit}. */
    List<ScheduleRecord> due(long nowMs, int limit);

    /**
     * Handles the fire(s) up to {@code newCursorMs} if the cursor is still {@code expectedCursorMs}: moves the cursor
     * to {@code newCursorMs} and the due time to {@code dueAtMs}, adds {@code fire} to the history (unless
     * {@code null}) and enqueues {@code job} (unless {@code null}), all at once. The store may append to the job's id
     * (a '.' and digits) to keep the job beside the schedule (Redis Cluster slots); the id recorded in the fire is the
     * one written.
     *
     * @param fire its {@link Fire#jobId()} is replaced by the id written
     * @return {@link Advance#APPLIED} with the job's id, or why not
     */
    AdvanceResult advance(String topic, String name, long expectedCursorMs, long newCursorMs, Long dueAtMs, Fire fire,
                          NewJob job);

    /**
     * Enqueues {@code job} for a run-now and records {@code fire}; the cursor and the due time are not touched, so the
     * cron fires go on as before.
     */
    AdvanceResult runNow(String topic, String name, Fire fire, NewJob job);

    enum Advance {
        /** Done: the cursor moved (or, for a run-now, the job was enqueued). */
        APPLIED,
        /** The cursor is no longer the one expected: another instance fired, or the schedule was replaced. */
        CONFLICT,
        /** No such schedule (deleted meanwhile). */
        NOT_FOUND
    }

    /** @param jobId the id of the job enqueued, when one was */
    record AdvanceResult(Advance outcome, String jobId) {
    }
}
