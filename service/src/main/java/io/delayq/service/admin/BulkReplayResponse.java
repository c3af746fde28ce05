package io.delayq.service.admin;

/**
 * What a bulk replay did.
 *
 * @param replayed   dead letters replayed now
 * @param duplicates dead letters skipped because they were replayed moments ago
 * @param more       true when it stopped at {@code max} and more match; call again to continue
 */
public record BulkReplayResponse(int replayed, int duplicates, boolean more) {
}
