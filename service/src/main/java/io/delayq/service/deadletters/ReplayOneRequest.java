package io.delayq.service.deadletters;

import io.delayq.service.api.CallbackSpec;

/**
 * Options of a replay; the body may be absent.
 *
 * @param delayMs  run the replayed job this long from now (default: at once)
 * @param callback send it here instead of the dead job's callback
 */
public record ReplayOneRequest(Long delayMs, CallbackSpec callback) {
}
