package io.delayq.client;

import com.fasterxml.jackson.databind.JsonNode;

/** 400 or 422: the request broke a rule; {@link #detail()} names the field and the allowed values; nothing was changed. */
public class ValidationException extends DelayqException {
    public ValidationException(int status, String title, String detail, String type, JsonNode problem) {
        super(status, title, detail, type, problem);
    }
}
