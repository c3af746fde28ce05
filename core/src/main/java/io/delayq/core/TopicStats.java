package io.delayq.core;

/**
 * Counters of one topic, summed over its partitions.
 *
 * @param topic     the topic
 * @param scheduled jobs waiting for their run time (including retries)
 * @param leased    attempts in progress
 * @param dead      jobs that died, since the topic was first used
 * @param succeeded jobs that succeeded, since the topic was first used
 * @param nextRunAt epoch ms of the earliest scheduled job, or {@code -1}
 */
public record TopicStats(String topic, long scheduled, long leased, long dead, long succeeded, long nextRunAt) {
}
