package io.delayq.client;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

import java.util.List;

/**
 * What a bulk replay did.
 *
 * @param replayed   dead letters replayed now
 * @param duplicates dead letters skipped because they were replayed moments ago
 * @param more       true when it stopped at its {@code max} and more match: call again with
 *                   {@link DeadLetterFilter#cursor(String)} set to {@code nextCursor} to continue
 * @param failed     dead letters that could not be replayed (they count towards {@code max})
 * @param failures   one per failed letter, in the order taken
 * @param nextCursor where this request stopped; {@code null} when nothing is left
 * @param stopped    present when the store or the archive could not be reached part-way
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record BulkReplayResult(int replayed, int duplicates, boolean more, int failed, List<Failure> failures,
                               String nextCursor, String stopped) {
    public BulkReplayResult {
        failures = failures == null ? List.of() : List.copyOf(failures);
    }

    /**
     * A letter the replay could not take; nothing was recorded on it.
     *
     * @param status what replaying it alone would have answered: 404 (purged meanwhile), 409 (its replay id is taken),
     *               422 (refused by the rules), 500 (anything else)
     */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Failure(String key, String topic, String id, int status, String reason) {
    }
}
