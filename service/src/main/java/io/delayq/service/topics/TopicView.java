package io.delayq.service.topics;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.delayq.core.TopicStats;
import io.delayq.service.api.JobView;

/**
 * A topic: its counters and its settings.
 *
 * @param topic     the name
 * @param scheduled jobs waiting for their run time (including retries)
 * @param leased    attempts in progress
 * @param dead      jobs that died since the topic was first used
 * @param succeeded jobs delivered since the topic was first used
 * @param nextRunAt when the earliest scheduled job is due (RFC 3339), absent when none is
 * @param settings  the topic's own settings
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record TopicView(String topic, long scheduled, long leased, long dead, long succeeded, String nextRunAt,
                        TopicSettingsView settings) {
    public static TopicView of(TopicStats stats, TopicSettingsView settings) {
        return new TopicView(stats.topic(), stats.scheduled(), stats.leased(), stats.dead(), stats.succeeded(),
                stats.nextRunAt() < 0 ? null : JobView.time(stats.nextRunAt()), settings);
    }
}
