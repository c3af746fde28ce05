package io.delayq.core.archive;

import java.util.Objects;

/**
 * One thing an operator did, as the audit log keeps it.
 *
 * @param id     unique, assigned by the writer (a UUID); newest-first order is by {@code at}, then id
 * @param at     epoch ms
 * @param actor  the token name that did it
 * @param action what, e.g. {@code topic.settings}, {@code topic.pause}, {@code dead-letter.replay},
 *               {@code dead-letters.purge}, {@code bulk.start}, {@code bulk.cancel}, {@code job.cancel}
 * @param target what it was done to: a topic, a dead letter's key, a job ref, or a filter as a query string
 * @param count  how many jobs or letters it changed
 * @param detail a short human description, or {@code null}
 */
public record AuditEntry(String id, long at, String actor, String action, String target, long count, String detail) {
    public AuditEntry {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(actor, "actor");
        Objects.requireNonNull(action, "action");
        Objects.requireNonNull(target, "target");
    }
}
