package io.delayq.redis;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * Tuning of a {@link RedisJobStore}.
 *
 * @param partitions        partitions per topic unless {@code topicPartitions} says otherwise; a topic keeps the
 *                          count it was first used with (recorded in Redis)
 * @param topicPartitions   per-topic partition counts
 * @param finishedRetention how long finished jobs stay readable by {@code find} (and block their id)
 * @param historySize       attempts kept in a job's history (the newest); at least the highest maxAttempts allowed, so
 *                          that a dead letter shows every attempt
 * @param poolSize          Redis connections at most (one is held by the notification subscriber)
 * @param settingsCacheTtl  how long topic settings read for the hot path are cached by this instance
 * @param trimInterval      how often the store drops finished records past the retention in every partition (the
 *                          transitions trim their own partition as they go; this pass reaches idle ones)
 */
public record RedisStoreOptions(int partitions, Map<String, Integer> topicPartitions, Duration finishedRetention,
                                int historySize, int poolSize, Duration settingsCacheTtl, Duration trimInterval) {
    public RedisStoreOptions {
        if (partitions < 1) {
            throw new IllegalArgumentException("partitions must be at least 1");
        }
        topicPartitions = topicPartitions == null ? Map.of() : Map.copyOf(topicPartitions);
        topicPartitions.forEach((topic, p) -> {
            if (p == null || p < 1) {
                throw new IllegalArgumentException("partitions of topic " + topic + " must be at least 1");
            }
        });
        Objects.requireNonNull(finishedRetention, "finishedRetention");
        if (historySize < 1) {
            throw new IllegalArgumentException("historySize must be at least 1");
        }
        if (poolSize < 2) {
            throw new IllegalArgumentException("poolSize must be at least 2 (one connection is the subscriber's)");
        }
        Objects.requireNonNull(settingsCacheTtl, "settingsCacheTtl");
        if (trimInterval == null || trimInterval.isNegative() || trimInterval.isZero()) {
            throw new IllegalArgumentException("trimInterval must be positive");
        }
    }

    /** 1 partition, 24 h retention, 100 attempts of history, 32 connections, settings cached 1 s, a trim pass every 5 s. */
    public static RedisStoreOptions defaults() {
        return new RedisStoreOptions(1, Map.of(), Duration.ofHours(24), 100, 32, Duration.ofSeconds(1),
                Duration.ofSeconds(5));
    }

    public int partitionsOf(String topic) {
        return topicPartitions.getOrDefault(topic, partitions);
    }

    public RedisStoreOptions withPartitions(int defaultPartitions, Map<String, Integer> perTopic) {
        return new RedisStoreOptions(defaultPartitions, perTopic, finishedRetention, historySize, poolSize, settingsCacheTtl, trimInterval);
    }

    public RedisStoreOptions withFinishedRetention(Duration retention) {
        return new RedisStoreOptions(partitions, topicPartitions, retention, historySize, poolSize, settingsCacheTtl, trimInterval);
    }

    public RedisStoreOptions withHistorySize(int size) {
        return new RedisStoreOptions(partitions, topicPartitions, finishedRetention, size, poolSize, settingsCacheTtl, trimInterval);
    }

    public RedisStoreOptions withTrimInterval(Duration interval) {
        return new RedisStoreOptions(partitions, topicPartitions, finishedRetention, historySize, poolSize,
                settingsCacheTtl, interval);
    }

    public RedisStoreOptions withPoolSize(int size) {
        return new RedisStoreOptions(partitions, topicPartitions, finishedRetention, historySize, size, settingsCacheTtl, trimInterval);
    }
}
