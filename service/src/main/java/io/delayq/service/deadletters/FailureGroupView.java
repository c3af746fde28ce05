package io.delayq.service.deadletters;

import io.delayq.core.archive.FailureGroup;

import java.util.List;

/**
 * A failure group on the wire: how many dead letters share a signature, how many of those died in the last hour,
 * the first and last death (RFC 3339), and the newest letter as an example.
 */
public record FailureGroupView(SignatureView signature, long count, long lastHour, String firstDeadAt,
                               String lastDeadAt, DeadLetterView example) {
    static FailureGroupView of(FailureGroup g) {
        return new FailureGroupView(SignatureView.of(g.signature()), g.count(), g.lastHour(),
                DeadLetterView.time(g.firstDeadAt()), DeadLetterView.time(g.lastDeadAt()),
                DeadLetterView.of(g.example()));
    }

    /** {@code GET /v1/admin/dead-letters/groups}: largest first. */
    public record Groups(List<FailureGroupView> items) {
    }
}
