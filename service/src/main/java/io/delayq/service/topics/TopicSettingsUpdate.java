package io.delayq.service.topics;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.delayq.core.TopicSettings;
import io.delayq.service.api.HeaderValues;
import io.delayq.service.jobs.JobScheduler;
import io.delayq.service.ratelimit.RateLimitChecks;
import io.dropwizard.util.Duration;

import java.util.function.UnaryOperator;

/**
 * Applies a {@code PUT /v1/topics/{topic}} body to the stored settings: a field present in the body replaces the
 * stored value ({@code null} resets it to the service default), a field left out keeps it. Reading the body as a tree
 * is what tells "left out" from "null". A callback or {@code onDead} header sent as the mask keeps its stored value
 * ({@link HeaderValues#keepStored}), resolved against the settings the store holds when it writes.
 */
public final class TopicSettingsUpdate {
    private static final long MIN_ASYNC_ACK_MS = 1_000;
    private static final long MAX_ASYNC_ACK_MS = 86_400_000;

    private final ObjectMapper mapper;
    private final JobScheduler scheduler;

    public TopicSettingsUpdate(ObjectMapper mapper, JobScheduler scheduler) {
        this.mapper = mapper;
        this.scheduler = scheduler;
    }

    /** A receiver that answered 202 gets between a second and a day to confirm; {@code null} stays {@code null}. */
    static Long checkAsyncAckTimeout(Duration timeout) {
        if (timeout == null) {
            return null;
        }
        long ms = timeout.toMilliseconds();
        if (ms < MIN_ASYNC_ACK_MS || ms > MAX_ASYNC_ACK_MS) {
            throw new IllegalArgumentException("asyncAckTimeout is " + timeout + "; it must be between 1s and 24h");
        }
        return ms;
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
                // Held to today's limits when sent; one stored before them does not block other changes.
                body.has("backoff") ? scheduler.checkBackoff(request.backoff()) : null,
                body.has("timeout") ? JobScheduler.checkTimeout(request.timeout()) : null,
                body.has("paused") ? request.paused() : null,
                body.has("archiveSucceeded") ? request.archiveSucceeded() : null,
                body.has("onDead") ? scheduler.onDead(request.onDead()) : null,
                body.has("breaker") ? BreakerChecks.check(request.breaker()) : null,
                body.has("asyncAckTimeout") ? checkAsyncAckTimeout(request.asyncAckTimeout()) : null,
                body.has("asyncAck") ? request.asyncAck() : null,
                body.has("errorBodies") ? request.errorBodies() : null,
                body.has("rateLimit") ? RateLimitChecks.check("rateLimit", request.rateLimit()) : null,
                body.has("expiresAfter") ? RetryAnswerChecks.expiresAfter(request.expiresAfter()) : null,
                body.has("noRetryStatuses") ? RetryAnswerChecks.noRetryStatuses(request.noRetryStatuses()) : null);
        return current -> new TopicSettings(
                body.has("callback") ? HeaderValues.keepStored("callback", given.callback(), current.callback())
                        : current.callback(),
                body.has("maxAttempts") ? given.maxAttempts() : current.maxAttempts(),
                body.has("backoff") ? given.backoff() : current.backoff(),
                body.has("timeout") ? given.timeoutMs() : current.timeoutMs(),
                body.has("paused") ? given.paused() : current.paused(),
                body.has("archiveSucceeded") ? given.archiveSucceeded() : current.archiveSucceeded(),
                body.has("onDead") ? HeaderValues.keepStored("onDead", given.onDead(), current.onDead())
                        : current.onDead(),
                body.has("breaker") ? given.breaker() : current.breaker(),
                body.has("asyncAckTimeout") ? given.asyncAckTimeoutMs() : current.asyncAckTimeoutMs(),
                body.has("asyncAck") ? given.asyncAck() : current.asyncAck(),
                body.has("errorBodies") ? given.errorBodies() : current.errorBodies(),
                body.has("rateLimit") ? given.rateLimit() : current.rateLimit(),
                body.has("expiresAfter") ? given.expiresAfterMs() : current.expiresAfterMs(),
                body.has("noRetryStatuses") ? given.noRetryStatuses() : current.noRetryStatuses());
    }
}
