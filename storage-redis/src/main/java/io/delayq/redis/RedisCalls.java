package io.delayq.redis;

import io.delayq.core.StoreException;
import io.delayq.core.StoreStatus;
import io.delayq.redis.RedisKeys.Partition;
import io.delayq.redis.Scripts.Op;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisException;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * How the store talks to Redis: every call through {@link #call}, which turns a failure to reach Redis into
 * {@link StoreException} UNAVAILABLE (and has a cluster client re-read its slot map); scripts one by one or pipelined
 * ({@link #evalAll}); one pipelined round trip over partitions (per node on a cluster), strict ({@link #perPartition})
 * or leaving out the partitions whose node failed ({@link #eachPartition}).
 */
final class RedisCalls {
    private final UnifiedJedis redis;
    private final ClusterNodes nodes;
    private final Scripts scripts;

    RedisCalls(UnifiedJedis redis, ClusterNodes nodes, Scripts scripts) {
        this.redis = redis;
        this.nodes = nodes;
        this.scripts = scripts;
    }

    UnifiedJedis client() {
        return redis;
    }

    ClusterNodes nodes() {
        return nodes;
    }

    Scripts scripts() {
        return scripts;
    }

    /** A pipeline of the client (see {@link ClusterNodes#pipelined}). */
    AbstractPipeline pipelined() {
        return nodes.pipelined();
    }

    /** Runs a Redis call, turning a failure to reach Redis into {@link StoreException} UNAVAILABLE. */
    <T> T call(String operation, Supplier<T> action) {
        try {
            return action.get();
        } catch (JedisException e) {
            // a failover or resharding: pipelines follow neither MOVED nor a dead master by themselves
            nodes.refreshSoon();
            throw new StoreException(StoreStatus.UNAVAILABLE, "Redis did not " + operation + ": " + e.getMessage()
                    + " (is Redis running and reachable?)", e);
        } catch (IllegalStateException e) {
            if (!isUnansweredPipeline(e)) {
                throw e;
            }
            nodes.refreshSoon();
            throw new StoreException(StoreStatus.UNAVAILABLE, "Redis did not " + operation + ": a node did not answer"
                    + " its part of the pipeline (a failover or a node down?)", e);
        }
    }

    /**
     * A cluster pipeline whose node failed during {@code sync} leaves that node's responses unset (Jedis logs the
     * connection error instead of throwing), and reading one throws this from {@link Response#get}.
     */
    static boolean isUnansweredPipeline(IllegalStateException e) {
        StackTraceElement[] trace = e.getStackTrace();
        return trace.length > 0 && trace[0].getClassName().equals(Response.class.getName());
    }

    /** One EVALSHA, or a pipeline of them; a call that met NOSCRIPT is repeated (it did not run). */
    List<Object> evalAll(Op op, List<List<String>> keys, List<List<String>> args) {
        if (keys.size() == 1) {
            return List.of(scripts.eval(op, keys.get(0), args.get(0)));
        }
        List<Response<Object>> responses = new ArrayList<>(keys.size());
        try (AbstractPipeline pipeline = nodes.pipelined()) {
            for (int i = 0; i < keys.size(); i++) {
                responses.add(pipeline.evalsha(scripts.sha(op), keys.get(i), args.get(i)));
            }
            pipeline.sync();
        }
        List<Object> answers = new ArrayList<>(keys.size());
        for (int i = 0; i < responses.size(); i++) {
            Object answer;
            try {
                answer = responses.get(i).get();
            } catch (JedisException e) {
                if (!Scripts.isNoScript(e)) {
                    throw e;
                }
                answer = scripts.eval(op, keys.get(i), args.get(i));
            }
            answers.add(answer);
        }
        return answers;
    }

    /** One pipelined round trip over the partitions (per node on a cluster), not one call per partition. */
    <T> List<T> perPartition(String operation, List<Partition> ps,
                             BiFunction<AbstractPipeline, Partition, Response<T>> command) {
        return call(operation, () -> {
            List<Response<T>> responses = new ArrayList<>(ps.size());
            try (AbstractPipeline pipeline = nodes.pipelined()) {
                for (Partition p : ps) {
                    responses.add(command.apply(pipeline, p));
                }
                pipeline.sync();
            }
            List<T> out = new ArrayList<>(responses.size());
            for (Response<T> r : responses) {
                out.add(r.get());
            }
            return out;
        });
    }

    /**
     * One pipeline of {@code size} commands (one per partition; per node on a cluster); the answer of each, or null
     * where that partition's node failed its part (the failure added to {@code failures}). A NOSCRIPT answer is
     * returned as its exception for the caller to retry. Fails, as {@link #call} does, when the pipeline cannot be
     * sent at all or every part failed.
     */
    <T> List<T> eachPartition(String operation, int size, List<RuntimeException> failures,
                              Function<AbstractPipeline, List<Response<T>>> commands) {
        List<Response<T>> responses = call(operation, () -> {
            try (AbstractPipeline pipeline = nodes.pipelined()) {
                List<Response<T>> sent = commands.apply(pipeline);
                pipeline.sync();
                return sent;
            }
        });
        List<T> out = new ArrayList<>(size);
        List<RuntimeException> mine = new ArrayList<>();
        for (Response<T> r : responses) {
            try {
                out.add(r.get());
            } catch (JedisException e) {
                if (Scripts.isNoScript(e)) {
                    @SuppressWarnings("unchecked")
                    T asAnswer = (T) e;
                    out.add(asAnswer);
                    continue;
                }
                mine.add(e);
                out.add(null);
            } catch (IllegalStateException e) {
                if (!isUnansweredPipeline(e)) {
                    throw e;
                }
                mine.add(e);
                out.add(null);
            }
        }
        if (!mine.isEmpty() && mine.size() == size) {
            // nothing answered: the caller fails as for any call (UNAVAILABLE, the slot map re-read)
            call(operation, () -> {
                throw mine.get(0);
            });
        }
        failures.addAll(mine);
        return out;
    }
}
