package io.delayq.core.archive;

import java.util.Objects;

/**
 * One thing an operator or a tenant did, as the audit log keeps it.
 *
 * <p>Whose it is ({@code tenant}): the tenant that owns what was acted on — a tenant's own actions, and an operator's
 * on one tenant's topic(s) — so that the tenant reads it in its log ({@link OperatorLog#auditLog(int, String, String)});
 * {@code null} for an action on operators' topics, and for one that may span several tenants' topics (an operator's
 * filter without a topic: it is recorded once, for operators only). Operators read every entry.
 *
 * @param id     unique, assigned by the writer (a UUID); newest-first order is by {@code at}, then id
 * @param at     epoch ms
 * @param actor  the token name that did it
 * @param action what, e.g. {@code topic.settings}, {@code topic.pause}, {@code dead-letter.replay},
 *               {@code dead-letters.purge}, {@code bulk.start}, {@code bulk.cancel}, {@code bulk.finish},
 *               {@code job.cancel}, {@code job.reschedule}
 * @param target what it was done to: a topic, a dead letter's key, a job ref, or a filter as a query string
 * @param count  how many jobs or letters it changed
 * @param detail a short human description, or {@code null}
 * @param tenant the tenant the entry belongs to (see above), or {@code null}: operators only
 */
public record AuditEntry(String id, long at, String actor, String action, String target, long count, String detail,
                         String tenant) {
    public AuditEntry {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(actor, "actor");
        Objects.requireNonNull(action, "action");
        Objects.requireNonNull(target, "target");
    }

    /** An entry of operators only (no tenant), as before tenants. */
    public AuditEntry(String id, long at, String actor, String action, String target, long count, String detail) {
        this(id, at, actor, action, target, count, detail, null);
    }
}
