package io.delayq.service.scheduling;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.delayq.core.TopicSettings;
import io.delayq.service.api.TopicSettingsRequest;

/**
 * Applies a {@code PUT /v1/topics/{topic}} body to the stored settings: a field present in the body replaces the
 * stored value ({@code null} resets it to the service default), a field left out keeps it. Reading the body as a tree
 * is what tells "left out" from "null".
 */
public final class TopicSettingsUpdate {
    private final ObjectMapper mapper;
    private final JobScheduler scheduler;

    public TopicSettingsUpdate(ObjectMapper mapper, JobScheduler scheduler) {
        this.mapper = mapper;
        this.scheduler = scheduler;
    }

    /** The settings after the update; checks every value first. */
    public TopicSettings apply(TopicSettings current, ObjectNode body) throws JsonProcessingException {
        TopicSettingsRequest request = mapper.treeToValue(body, TopicSettingsRequest.class);
        return new TopicSettings(
                body.has("callback") ? scheduler.callback(request.callback()) : current.callback(),
                body.has("maxAttempts") ? scheduler.checkMaxAttempts(request.maxAttempts()) : current.maxAttempts(),
                body.has("backoff") ? request.backoff() : current.backoff(),
                body.has("timeout") ? JobScheduler.checkTimeout(request.timeout()) : current.timeoutMs(),
                body.has("paused") ? request.paused() : current.paused(),
                body.has("archiveSucceeded") ? request.archiveSucceeded() : current.archiveSucceeded());
    }
}
