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
 * @param minReplicas       replicas every acknowledged write must reach before the caller is answered ({@code WAIT},
 *                          one per node a call touched); 0 = answer once the master has it (Redis's asynchronous
 *                          replication: a failover can lose the last acknowledged writes)
 * @param replicaTimeout    how long one {@code WAIT} may take before the caller gets
 *                          {@link io.delayq.core.StoreException} UNAVAILABLE
 */
public record RedisStoreOptions(int partitions, Map<String, Integer> topicPartitions, Duration finishedRetention,
                                int historySize, int poolSize, Duration settingsCacheTtl, Duration trimInterval,
                                int minReplicas, Duration replicaTimeout) {
    /** The options without replicated acknowledgements (minReplicas 0), as before they existed. */
    public RedisStoreOptions(int partitions, Map<String, Integer> topicPartitions, Duration finishedRetention,
                             int historySize, int poolSize, Duration settingsCacheTtl, Duration trimInterval) {
        this(partitions, topicPartitions, finishedRetention, historySize, poolSize, settingsCacheTtl, trimInterval, 0,
                DEFAULT_REPLICA_TIMEOUT);
    }

    static final Duration DEFAULT_REPLICA_TIMEOUT = Duration.ofSeconds(1);

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
        if (minReplicas < 0) {
            throw new IllegalArgumentException("minReplicas must be 0 (no wait) or more, not " + minReplicas);
        }
        if (replicaTimeout == null || replicaTimeout.toMillis() < 1) {
            throw new IllegalArgumentException("replicaTimeout must be at least 1 ms (WAIT 0 would wait forever)");
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
        return new RedisStoreOptions(defaultPartitions, perTopic, finishedRetention, historySize, poolSize, settingsCacheTtl, trimInterval, minReplicas, replicaTimeout);
    }

    public RedisStoreOptions withFinishedRetention(Duration retention) {
        return new RedisStoreOptions(partitions, topicPartitions, retention, historySize, poolSize, settingsCacheTtl, trimInterval, minReplicas, replicaTimeout);
    }

    public RedisStoreOptions withHistorySize(int size) {
        return new RedisStoreOptions(partitions, topicPartitions, finishedRetention, size, poolSize, settingsCacheTtl, trimInterval, minReplicas, replicaTimeout);
    }

    public RedisStoreOptions withTrimInterval(Duration interval) {
        return new RedisStoreOptions(partitions, topicPartitions, finishedRetention, historySize, poolSize,
                settingsCacheTtl, interval, minReplicas, replicaTimeout);
    }

    public RedisStoreOptions withPoolSize(int size) {
        return new RedisStoreOptions(partitions, topicPartitions, finishedRetention, historySize, size, settingsCacheTtl, trimInterval, minReplicas, replicaTimeout);
    }

    /** Acknowledged writes wait for {@code replicas} replicas, at most {@code timeout} per WAIT. */
    public RedisStoreOptions withMinReplicas(int replicas, Duration timeout) {
        return new RedisStoreOptions(partitions, topicPartitions, finishedRetention, historySize, poolSize,
                settingsCacheTtl, trimInterval, replicas, timeout);
    }
}
