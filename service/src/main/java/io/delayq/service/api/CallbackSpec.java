package io.delayq.service.api;

import java.util.Map;

/**
 * Where a push delivery goes.
 *
 * @param url     absolute {@code http} or {@code https} URL that receives a {@code POST} of the payload
 * @param headers extra request headers sent with every attempt (e.g. the receiver's own auth header)
 */
public record CallbackSpec(String url, Map<String, String> headers) {
}
