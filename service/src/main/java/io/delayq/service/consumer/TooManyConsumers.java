package io.delayq.service.consumer;

import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;

/** A 429 with {@code Retry-After}: this instance holds as many streams or parked polls as it is allowed. */
final class TooManyConsumers extends WebApplicationException {
    static final int RETRY_AFTER_SECONDS = 5;

    TooManyConsumers(String message) {
        super(message, Response.status(429).header("Retry-After", RETRY_AFTER_SECONDS).build());
    }
}
