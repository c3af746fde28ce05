package io.delayq.client;

import com.fasterxml.jackson.databind.JsonNode;

/** 401 or 403: the token is missing, unknown, or lacks the role the endpoint needs. */
public class UnauthorizedException extends DelayqException {
    public UnauthorizedException(int status, String title, String detail, String type, JsonNode problem) {
        super(status, title, detail, type, problem);
    }
}
