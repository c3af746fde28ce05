package io.delayq.postgres;

import io.delayq.core.OutboxEntry;

import java.util.List;

/**
 * {@code delayq_outbox}, where finished jobs wait for the archiver (its {@code seq} is the entry id), and
 * {@code delayq_quarantine} (V2), where the entries it cannot read are moved, whole.
 */
final class Outbox {
    private final JobQueries queries;

    Outbox(JobQueries queries) {
        this.queries = queries;
    }

    List<OutboxEntry> read(int max) {
        return PostgresCalls.call("read the outbox", () -> queries.readOutbox(max));
    }

    void delete(List<OutboxEntry> entries) {
        Long[] seqs = seqs(entries);
        PostgresCalls.call("delete outbox entries", () -> queries.deleteOutbox(seqs));
    }

    void quarantine(List<OutboxEntry> entries) {
        Long[] seqs = seqs(entries);
        String[] reasons = entries.stream()
                .map(e -> e.isReadable() ? "quarantined by request" : e.unreadable().reason())
                .toArray(String[]::new);
        PostgresCalls.call("quarantine outbox entries", () -> queries.quarantineOutbox(seqs, reasons));
    }

    long quarantineSize() {
        return PostgresCalls.call("read the quarantine size", queries::quarantineSize);
    }

    long size() {
        return PostgresCalls.call("read the outbox size", queries::outboxSize);
    }

    private static Long[] seqs(List<OutboxEntry> entries) {
        Long[] seqs = new Long[entries.size()];
        for (int i = 0; i < seqs.length; i++) {
            String entryId = entries.get(i).entryId();
            try {
                seqs[i] = Long.parseLong(entryId);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("'" + entryId + "' is not an outbox entry id of this store", e);
            }
        }
        return seqs;
    }
}
