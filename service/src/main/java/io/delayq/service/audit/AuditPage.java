package io.delayq.service.audit;

import com.fasterxml.jackson.annotation.JsonInclude;

import java.util.List;

/** The answer of {@code GET /v1/admin/audit}: newest first; {@code nextBefore} asks for the next (older) page. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record AuditPage(List<AuditEntryView> items, String nextBefore) {
}
