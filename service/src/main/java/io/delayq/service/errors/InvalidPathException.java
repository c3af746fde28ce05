package io.delayq.service.errors;

import jakarta.ws.rs.BadRequestException;

/** A request path this API refuses whole, before any resource is matched: 400 {@code invalid-path}. */
public final class InvalidPathException extends BadRequestException {
    public InvalidPathException(String message) {
        super(message);
    }
}
