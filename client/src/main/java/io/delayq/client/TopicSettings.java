package io.delayq.client;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.JsonNode;

/**
 * A topic's own settings as the service shows them; absent values mean the service default.
 *
 * @param callback         default callback of jobs that name none
 * @param maxAttempts      attempts of jobs that do not say
 * @param backoff          backoff of jobs that do not say, as JSON
 * @param timeout          attempt timeout of jobs that do not say, in the service's duration syntax (e.g. "30 seconds")
 * @param paused           nothing of the topic is delivered while true
 * @param archiveSucceeded succeeded jobs are archived too
 * @param onDead           where dead notices of jobs that name no target of their own go
 * @param breaker          the topic's own endpoint circuit-breaker settings as JSON (absent fields: the service
 *                         default), or {@code null}
 * @param asyncAckTimeout  how long a callback that answered 202 has to ack or nack, in the service's duration syntax
 * @param asyncAck         every 202 is an asynchronous acknowledgement; {@code null}: only a 202 with
 *                         {@code Delayq-Async-Ack: true}
 * @param errorBodies      errors quote the receiver's error answer; {@code null}: the status only
 * @param rateLimit        deliveries and pull leases per second over all instances, and the burst; {@code null}: none
 * @param expiresAfter     jobs not delivered this long after their run time are dead (cause EXPIRED), in the
 *                         service's duration syntax; {@code null}: none
 * @param noRetryStatuses  callback answers that end a job at once (cause NO_RETRY); {@code null}: none
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record TopicSettings(Callback callback, Integer maxAttempts, JsonNode backoff, String timeout, boolean paused,
                            boolean archiveSucceeded, Callback onDead, JsonNode breaker, String asyncAckTimeout,
                            Boolean asyncAck, Boolean errorBodies,
                            RateLimit rateLimit, String expiresAfter, java.util.List<Integer> noRetryStatuses) {
}
