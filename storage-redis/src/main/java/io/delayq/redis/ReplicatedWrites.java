package io.delayq.redis;

import io.delayq.core.StoreException;
import io.delayq.core.StoreStatus;
import io.delayq.redis.Scripts.Op;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.exceptions.JedisException;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The writes whose success is told to a caller ({@code minReplicas}): with 0, a plain call; else the writes in one
 * pipeline with a {@code WAIT} per node behind them (see {@link #pipelineWithWaits}), and UNAVAILABLE when fewer
 * replicas than asked have them within {@code replicaTimeout}.
 */
final class ReplicatedWrites {
    private final RedisCalls calls;
    private final int replicas;
    private final long timeoutMs;

    ReplicatedWrites(RedisCalls calls, RedisStoreOptions options) {
        this.calls = calls;
        this.replicas = options.minReplicas();
        this.timeoutMs = options.replicaTimeout().toMillis();
    }

    /**
     * Script calls whose success is told to a caller: {@link RedisCalls#evalAll} when {@code minReplicas} is 0; else
     * one pipeline of the calls, then a WAIT per node they went to. A call that met NOSCRIPT did not run: it is loaded
     * and sent again, with its own WAIT.
     */
    List<Object> evalAcknowledged(String operation, Op op, List<List<String>> keys, List<List<String>> args) {
        if (replicas == 0) {
            return calls.call(operation, () -> calls.evalAll(op, keys, args));
        }
        return calls.call(operation, () -> evalWaiting(operation, op, keys, args, true));
    }

    Object evalOneAcknowledged(String operation, Op op, List<String> keys, List<String> args) {
        return evalAcknowledged(operation, op, List.of(keys), List.of(args)).get(0);
    }

    private List<Object> evalWaiting(String operation, Op op, List<List<String>> keys, List<List<String>> args,
                                     boolean retryNoScript) {
        Scripts scripts = calls.scripts();
        List<Response<?>> responses = pipelineWithWaits(operation, keys.stream().map(k -> k.get(0)).toList(),
                (pipe, i) -> pipe.evalsha(scripts.sha(op), keys.get(i), args.get(i)));
        Object[] answers = new Object[responses.size()];
        List<Integer> again = new ArrayList<>();
        for (int i = 0; i < responses.size(); i++) {
            try {
                answers[i] = responses.get(i).get();
            } catch (JedisException e) {
                if (!retryNoScript || !Scripts.isNoScript(e)) {
                    throw e;
                }
                again.add(i);
            }
        }
        if (!again.isEmpty()) {
            again.forEach(i -> scripts.reload(op, keys.get(i).get(0)));
            List<Object> retried = evalWaiting(operation, op, again.stream().map(keys::get).toList(),
                    again.stream().map(args::get).toList(), false);
            for (int j = 0; j < again.size(); j++) {
                answers[again.get(j)] = retried.get(j);
            }
        }
        return Arrays.asList(answers);
    }

    /** One write told to a caller: {@code direct} when {@code minReplicas} is 0, else {@code command} and its WAIT. */
    <T> T writeOne(String operation, String key, Function<AbstractPipeline, Response<T>> command, Supplier<T> direct) {
        if (replicas == 0) {
            return calls.call(operation, direct);
        }
        return calls.call(operation, () -> {
            @SuppressWarnings("unchecked")
            T answer = (T) pipelineWithWaits(operation, List.of(key), (pipe, i) -> command.apply(pipe)).get(0).get();
            return answer;
        });
    }

    /**
     * Appends {@code commands} (command i routed by {@code keys[i]}) to one pipeline, then, when {@code minReplicas} is
     * above 0, one {@code WAIT minReplicas replicaTimeout} per node they went to, behind them: WAIT counts the replicas
     * that have every write <em>of its own connection</em>, and a pipeline uses one connection per node, so the WAIT
     * must travel in the same pipeline, routed by a key of that node, rather than as a separate call from the pool.
     * A node that answers with fewer replicas fails the whole call with UNAVAILABLE (the writes are on the master and
     * may or may not survive a failover); the commands' own answers are the caller's to read.
     */
    List<Response<?>> pipelineWithWaits(String operation, List<String> keys,
                                        BiFunction<AbstractPipeline, Integer, Response<?>> commands) {
        ClusterNodes nodes = calls.nodes();
        List<Response<?>> responses = new ArrayList<>(keys.size());
        List<Response<Long>> waits = new ArrayList<>();
        try (AbstractPipeline pipeline = nodes.pipelined()) {
            Map<Object, String> keyOfNode = new LinkedHashMap<>();
            for (int i = 0; i < keys.size(); i++) {
                responses.add(commands.apply(pipeline, i));
                keyOfNode.putIfAbsent(nodes.nodeOf(keys.get(i)), keys.get(i));
            }
            if (replicas > 0) {
                keyOfNode.values().forEach(key -> waits.add(pipeline.waitReplicas(key, replicas, timeoutMs)));
            }
            pipeline.sync();
        }
        for (Response<Long> wait : waits) {
            long reached = wait.get();
            if (reached < replicas) {
                throw new StoreException(StoreStatus.UNAVAILABLE, "the " + operation + " write reached " + reached
                        + " of " + replicas + " replica(s) within " + timeoutMs + " ms; it may or may not survive a"
                        + " failover (the master has it)");
            }
        }
        return responses;
    }
}
