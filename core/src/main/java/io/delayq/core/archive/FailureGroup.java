package io.delayq.core.archive;

import java.util.Objects;

/**
 * The dead letters of one {@link FailureSignature}, as the archive's own aggregation counts them.
 *
 * @param signature   what they share
 * @param count       how many match the filter
 * @param lastHour    of those, how many died in the hour before the query (the trend)
 * @param firstDeadAt the oldest one's death, epoch ms
 * @param lastDeadAt  the newest one's death, epoch ms
 * @param example     the newest one
 */
public record FailureGroup(FailureSignature signature, long count, long lastHour, long firstDeadAt, long lastDeadAt,
                           DeadLetter example) {
    public FailureGroup {
        Objects.requireNonNull(signature, "signature");
        Objects.requireNonNull(example, "example");
    }
}
