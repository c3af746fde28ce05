package io.delayq.redis;

import io.delayq.redis.RedisKeys.Partition;
import io.delayq.redis.Scripts.Op;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Collections;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Drops finished records past the retention in every partition of every topic ({@code trim.lua}), every
 * {@code trimInterval}, on a daemon thread. The transitions trim their own partition as they go; this reaches
 * partitions nothing touches.
 */
final class FinishedTrimmer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(FinishedTrimmer.class);
    /** Finished records one script call drops at most per partition. */
    private static final String PER_CALL = "500";

    private final RedisCalls calls;
    private final TopicPartitions topics;
    private final List<String> args;
    private final ScheduledExecutorService executor;

    FinishedTrimmer(RedisCalls calls, TopicPartitions topics, ScriptArgs scriptArgs, RedisStoreOptions options) {
        this.calls = calls;
        this.topics = topics;
        this.args = List.of(scriptArgs.retentionMs(), PER_CALL);
        this.executor = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "delayq-redis-trim");
            t.setDaemon(true);
            return t;
        });
        long every = options.trimInterval().toMillis();
        executor.scheduleWithFixedDelay(this::trim, every, every, TimeUnit.MILLISECONDS);
    }

    /**
     * One pass: one pipelined round trip (per node). A failed pass is retried at the next one: nothing depends on it
     * but memory and the ids it frees.
     */
    void trim() {
        try {
            List<Partition> ps = topics.allPartitions();
            if (ps.isEmpty()) {
                return;
            }
            calls.evalAll(Op.TRIM, ps.stream().map(p -> List.of(p.jobs(), p.finished())).toList(),
                    Collections.nCopies(ps.size(), args));
        } catch (RuntimeException e) {
            LOG.debug("trim pass failed, retried at the next one: {}", e.toString());
        }
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }
}
