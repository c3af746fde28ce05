package io.delayq.client;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

import java.time.Instant;
import java.util.List;

/**
 * One page of the audit log, newest first ({@code GET /v1/admin/audit}, roles admin and viewer).
 *
 * @param nextBefore give it to {@link DelayqClient#audit(int, String)} for the next page; {@code null} on the last
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record AuditPage(List<Entry> items, String nextBefore) {
    public AuditPage {
        items = items == null ? List.of() : List.copyOf(items);
    }

    public boolean hasNext() {
        return nextBefore != null;
    }

    /**
     * What an operator did.
     *
     * @param action e.g. {@code topic.settings}, {@code dead-letters.replay}, {@code bulk.start}, {@code token.create}
     * @param count  how many letters or jobs it concerned (1 for a single one)
     * @param tenant the tenant the entry belongs to; {@code null}: operators' only
     */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Entry(String id, Instant at, String actor, String action, String target, long count, String detail,
                        String tenant) {
    }
}
