package io.delayq.service.scheduling;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.delayq.core.TopicSettings;
import io.delayq.service.api.TopicSettingsRequest;

import java.util.function.UnaryOperator;

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

    /**
     * The change a body makes, for {@link io.delayq.core.JobStore#updateSettings}: every value is checked now, once,
     * and the change sets only the fields the body names, on whatever settings are current when the store writes, so
     * that a concurrent update of other fields survives.
     */
    public UnaryOperator<TopicSettings> change(ObjectNode body) throws JsonProcessingException {
        TopicSettingsRequest request = mapper.treeToValue(body, TopicSettingsRequest.class);
        TopicSettings given = new TopicSettings(
                body.has("callback") ? scheduler.callback(request.callback()) : null,
                body.has("maxAttempts") ? scheduler.checkMaxAttempts(request.maxAttempts()) : null,
                body.has("backoff") ? request.backoff() : null,
                body.has("timeout") ? JobScheduler.checkTimeout(request.timeout()) : null,
                body.has("paused") ? request.paused() : null,
                body.has("archiveSucceeded") ? request.archiveSucceeded() : null);
        return current -> new TopicSettings(
                body.has("callback") ? given.callback() : current.callback(),
                body.has("maxAttempts") ? given.maxAttempts() : current.maxAttempts(),
                body.has("backoff") ? given.backoff() : current.backoff(),
                body.has("timeout") ? given.timeoutMs() : current.timeoutMs(),
                body.has("paused") ? given.paused() : current.paused(),
                body.has("archiveSucceeded") ? given.archiveSucceeded() : current.archiveSucceeded());
    }
}
