package io.delayq.client;

import com.fasterxml.jackson.databind.JsonNode;

/** 404: no such job, topic or dead letter. */
public class NotFoundException extends DelayqException {
    public NotFoundException(int status, String title, String detail, String type, JsonNode problem) {
        super(status, title, detail, type, problem);
    }
}
