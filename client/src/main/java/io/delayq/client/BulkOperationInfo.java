package io.delayq.client;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

import java.time.Instant;

/**
 * A bulk operation and its progress, as {@code /v1/admin/bulk-operations} shows it.
 *
 * @param id              its id
 * @param kind            replay, purge (dead letters); cancel, run-now, reschedule (jobs)
 * @param target          dead-letters or jobs
 * @param filter          its filter as a query string
 * @param state           running, done, cancelled, failed, or stalled (running, but no progress reported for 30 s)
 * @param total           letters or jobs matching when it started
 * @param done            done so far
 * @param failed          those it could not act on (finished or gone meanwhile)
 * @param cancellable     whether a cancel would be accepted now
 * @param lastError       the latest failure, or {@code null}
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record BulkOperationInfo(String id, String kind, String target, String filter, String state, long total,
                                long done, long failed, String startedBy, Instant createdAt, Instant updatedAt,
                                boolean cancelRequested, boolean cancellable, String lastError) {

    public boolean finished() {
        return !"running".equals(state) && !"stalled".equals(state);
    }
}
