package io.delayq.service.topics;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.delayq.core.Backoff;
import io.delayq.core.Callback;
import io.delayq.core.TopicSettings;
import io.delayq.core.breaker.BreakerSettings;
import io.delayq.service.api.HeaderValues;
import io.delayq.service.ratelimit.RateLimitSpec;
import io.dropwizard.util.Duration;

/**
 * A topic's own settings; absent fields fall back to the service defaults. Header values of the callback and
 * {@code onDead} are masked ({@link HeaderValues}); a PUT may send the mask back to keep them.
 *
 * @param callback         default callback of jobs that name none
 * @param maxAttempts      attempts of jobs that do not say
 * @param backoff          backoff of jobs that do not say
 * @param timeout          attempt timeout of jobs that do not say
 * @param paused           nothing is delivered while true
 * @param archiveSucceeded succeeded jobs are archived too
 * @param onDead           where dead notices of jobs that name none go
 * @param breaker          the topic's own circuit-breaker settings (absent fields: the service default)
 * @param asyncAckTimeout  how long a callback that answered 202 has to ack or nack
 * @param asyncAck         every 202 is an asynchronous acknowledgement (absent: only a 202 with
 *                         {@code Delayq-Async-Ack: true})
 * @param errorBodies      errors quote the receiver's error answer (absent: the status only)
 * @param rateLimit        deliveries and pull leases per second over all instances, and the burst (absent: none)
 * @param expiresAfter     jobs not delivered this long after their run time are dead with cause EXPIRED
 * @param noRetryStatuses  callback answers that end a job at once (dead with cause NO_RETRY)
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record TopicSettingsView(Callback callback, Integer maxAttempts, Backoff backoff, Duration timeout,
                                boolean paused, boolean archiveSucceeded, Callback onDead, BreakerSpec breaker,
                                Duration asyncAckTimeout, Boolean asyncAck, Boolean errorBodies,
                                RateLimitSpec rateLimit, Duration expiresAfter, java.util.List<Integer> noRetryStatuses) {
    public static TopicSettingsView of(TopicSettings s) {
        return new TopicSettingsView(HeaderValues.masked(s.callback()), s.maxAttempts(), s.backoff(),
                duration(s.timeoutMs()), s.isPaused(), s.isArchiveSucceeded(), HeaderValues.masked(s.onDead()),
                breaker(s.breaker()), duration(s.asyncAckTimeoutMs()), s.asyncAck(), s.errorBodies(),
                RateLimitSpec.of(s.rateLimit()), duration(s.expiresAfterMs()), s.noRetryStatuses());
    }

    private static BreakerSpec breaker(BreakerSettings b) {
        return b == null ? null : new BreakerSpec(b.enabled(), b.failureThreshold(), duration(b.probeIntervalMs()),
                duration(b.maxProbeIntervalMs()), b.releasePerSecond());
    }

    private static Duration duration(Long ms) {
        return ms == null ? null : Duration.milliseconds(ms);
    }
}
