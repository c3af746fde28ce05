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
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record TopicSettings(Callback callback, Integer maxAttempts, JsonNode backoff, String timeout, boolean paused,
                            boolean archiveSucceeded) {
}
