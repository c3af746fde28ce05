package io.delayq.service.audit;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.delayq.core.archive.AuditEntry;
import io.delayq.service.api.HeaderValues;
import io.delayq.service.api.JobView;

/**
 * One audit entry on the wire; {@code at} is RFC 3339. Header values in its {@code detail} are masked when it is shown,
 * so that entries written before they were masked at the source do not show them either.
 *
 * @param tenant the tenant the entry belongs to (its own action, or an operator's on its topic); absent: operators only
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record AuditEntryView(String id, String at, String actor, String action, String target, long count,
                             String detail, String tenant) {
    static AuditEntryView of(AuditEntry e) {
        return new AuditEntryView(e.id(), JobView.time(e.at()), e.actor(), e.action(), e.target(), e.count(),
                HeaderValues.maskedJson(e.detail()), e.tenant());
    }
}
