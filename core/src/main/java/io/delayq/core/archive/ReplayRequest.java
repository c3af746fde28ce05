package io.delayq.core.archive;

import io.delayq.core.Callback;

/**
 * What an operator asks of one replay.
 *
 * @param delayMs    run the replayed job this long from now; {@code null} = at once
 * @param callback   send it here instead of the dead job's callback; {@code null} = the same as before
 * @param requestKey an idempotency key: a second request with the same key returns the first replay;
 *                   {@code null} = a replay within {@link DeadLetterReplayer#DEFAULT_DEDUP_WINDOW_MS} of the last
 *                   one counts as a double click and returns it
 */
public record ReplayRequest(Long delayMs, Callback callback, String requestKey) {
    public static ReplayRequest now() {
        return new ReplayRequest(null, null, null);
    }
}
