package io.delayq.client;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

import java.time.Instant;

/**
 * A topic's counters and settings.
 *
 * @param topic     the name
 * @param scheduled jobs waiting for their run time (retries included)
 * @param leased    attempts in progress
 * @param dead      jobs that died since the topic was first used
 * @param succeeded jobs delivered since the topic was first used
 * @param nextRunAt when the earliest scheduled job is due, or {@code null}
 * @param settings  the topic's own settings
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record TopicInfo(String topic, long scheduled, long leased, long dead, long succeeded, Instant nextRunAt,
                        TopicSettings settings) {
}
