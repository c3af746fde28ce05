package io.delayq.service.bulk;

/**
 * {@code POST /v1/admin/bulk-operations}.
 *
 * @param kind    {@code replay} or {@code purge}
 * @param dryRun  only count the letters it would work through
 * @param filter  which dead letters; a purge needs at least one filter
 * @param delayMs for a replay: run the replayed jobs this long after they are scheduled (default: at once)
 * @param expectedCount the dry run's count the operator confirmed: when more letters match now, the operation is
 *                      refused (409) and nothing is done
 */
public record BulkOperationRequest(String kind, Boolean dryRun, FilterSpec filter, Long delayMs, Long expectedCount) {
}
