package io.delayq.service.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.delayq.core.Backoff;
import io.delayq.core.Callback;
import io.delayq.core.TopicSettings;
import io.dropwizard.util.Duration;

/**
 * A topic's own settings; absent fields fall back to the service defaults.
 *
 * @param callback         default callback of jobs that name none
 * @param maxAttempts      attempts of jobs that do not say
 * @param backoff          backoff of jobs that do not say
 * @param timeout          attempt timeout of jobs that do not say
 * @param paused           nothing is delivered while true
 * @param archiveSucceeded succeeded jobs are archived too
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record TopicSettingsView(Callback callback, Integer maxAttempts, Backoff backoff, Duration timeout,
                                boolean paused, boolean archiveSucceeded) {
    public static TopicSettingsView of(TopicSettings s) {
        return new TopicSettingsView(s.callback(), s.maxAttempts(), s.backoff(),
                s.timeoutMs() == null ? null : Duration.milliseconds(s.timeoutMs()), s.isPaused(),
                s.isArchiveSucceeded());
    }
}
