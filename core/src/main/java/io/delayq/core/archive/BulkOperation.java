package io.delayq.core.archive;

import java.util.Objects;

/**
 * A replay or purge of every dead letter matching a filter, run in the background by one service instance and kept in
 * the archive's {@link OperatorLog}, so that every instance shows its progress and any of them can cancel it.
 *
 * <p>Whose it is ({@code tenant}): it works through its query's {@link DeadLetterQuery#scope() scope}, and belongs to
 * that scope's {@link TopicScope#tenant() tenant}. A tenant's operation runs over its own topics only and is its own;
 * an operator's ({@link TopicScope#all()}) is operators' only ({@code null}), even when its topic filter names a
 * tenant's topic: that tenant reads the {@code bulk.start} {@link AuditEntry} (which belongs to the topic's owner),
 * but neither reads nor cancels the operators' operation. Only its tenant and operators read or cancel it
 * ({@link OperatorLog#operation(String, String)}, {@link OperatorLog#requestCancel(String, String)}).
 *
 * @param id              chosen by the instance that starts it (a UUID)
 * @param kind            what it does to each letter
 * @param filter          the dead letters it works through, as the list endpoint's query string
 *                        ({@code topic=orders&group=3fa2…}); the letters matching when it started are its
 *                        {@code total}
 * @param state           where it is
 * @param total           letters matching when it started (the dry run's count)
 * @param done            letters replayed or purged so far
 * @param failed          letters it could not replay (gone meanwhile, a callback refused, the store down)
 * @param startedBy       the token name of who started it
 * @param createdAt       epoch ms
 * @param updatedAt       epoch ms of the last progress report: a running operation whose instance stopped reporting
 *                        for {@link #STALE_AFTER_MS} is shown as {@code stalled}
 * @param cancelRequested set by a cancel; the running instance stops at its next batch
 * @param lastError       the latest failure, or {@code null}
 * @param tenant          the tenant it belongs to (see above), or {@code null}: operators only; never changed by a
 *                        report
 */
public record BulkOperation(String id, Kind kind, String filter, State state, long total, long done, long failed,
                            String startedBy, long createdAt, long updatedAt, boolean cancelRequested,
                            String lastError, String tenant) {
    public static final long STALE_AFTER_MS = 30_000;

    /**
     * What it does: to dead letters ({@code REPLAY}, {@code PURGE}), or to a topic's jobs in the store
     * ({@code CANCEL}, {@code RUN_NOW}, {@code RESCHEDULE}; issue 29), whose {@code filter} is the job listing's.
     */
    public enum Kind {
        REPLAY, PURGE, CANCEL, RUN_NOW, RESCHEDULE;

        /** Whether it works on a topic's jobs rather than on dead letters. */
        public boolean onJobs() {
            return this == CANCEL || this == RUN_NOW || this == RESCHEDULE;
        }

        /** As the API spells it: {@code replay}, {@code run-now}, ... */
        public String wireName() {
            return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
        }
    }

    public enum State {
        RUNNING, DONE, CANCELLED, FAILED;

        public boolean finished() {
            return this != RUNNING;
        }
    }

    public BulkOperation {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(filter, "filter");
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(startedBy, "startedBy");
    }

    /** An operation of operators only (no tenant), as before tenants. */
    public BulkOperation(String id, Kind kind, String filter, State state, long total, long done, long failed,
                         String startedBy, long createdAt, long updatedAt, boolean cancelRequested, String lastError) {
        this(id, kind, filter, state, total, done, failed, startedBy, createdAt, updatedAt, cancelRequested, lastError,
                null);
    }

    public BulkOperation progressed(long newDone, long newFailed, String error, long nowMs) {
        return new BulkOperation(id, kind, filter, state, total, newDone, newFailed, startedBy, createdAt, nowMs,
                cancelRequested, error == null ? lastError : error, tenant);
    }

    public BulkOperation finished(State end, long nowMs) {
        return new BulkOperation(id, kind, filter, end, total, done, failed, startedBy, createdAt, nowMs,
                cancelRequested, lastError, tenant);
    }
}
