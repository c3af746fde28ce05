package io.delayq.service.bulk;

/**
 * {@code POST /v1/admin/bulk-operations}.
 *
 * @param kind    {@code replay} or {@code purge} (dead letters); {@code cancel}, {@code run-now} or
 *                {@code reschedule} (jobs)
 * @param dryRun  only count the letters (or jobs) it would work through
 * @param filter  which dead letters; a purge needs at least one filter. Or which jobs: the job listing's filters, with
 *                {@code topic} required
 * @param delayMs for a replay: run the replayed jobs this long after they are scheduled (default: at once)
 * @param expectedCount the dry run's count the operator confirmed: when more letters match now, the operation is
 *                      refused (409) and nothing is done
 * @param target  {@code dead-letters} (the default) or {@code jobs} (issue 29)
 * @param runAt   for a reschedule: the new run time of every job (RFC 3339); or else
 * @param shiftMs for a reschedule: move each job's run time by this much (negative: earlier), from the run time it
 *                had when the operation reached it
 */
public record BulkOperationRequest(String kind, Boolean dryRun, FilterSpec filter, Long delayMs, Long expectedCount,
                                   String target, String runAt, Long shiftMs) {
}
