package io.delayq.client;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/**
 * What a bulk replay did.
 *
 * @param replayed   dead letters replayed now
 * @param duplicates dead letters skipped because they were replayed moments ago
 * @param more       true when it stopped at its {@code max} and more match: call again to continue
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record BulkReplayResult(int replayed, int duplicates, boolean more) {
}
