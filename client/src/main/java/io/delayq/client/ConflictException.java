package io.delayq.client;

import com.fasterxml.jackson.databind.JsonNode;

/** 409: the job id is taken by other content, or a lease token is stale (the lease expired and the job moved on, or it was already acknowledged); nothing was changed. */
public class ConflictException extends DelayqException {
    public ConflictException(int status, String title, String detail, String type, JsonNode problem) {
        super(status, title, detail, type, problem);
    }
}
