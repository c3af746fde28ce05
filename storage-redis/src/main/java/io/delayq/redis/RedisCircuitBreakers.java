package io.delayq.redis;

import io.delayq.core.breaker.BreakerPolicy;
import io.delayq.core.breaker.CircuitBreakers;
import io.delayq.core.breaker.OriginCircuit;
import io.delayq.redis.Scripts.Op;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The circuits of callback origins in Redis: one HASH, {@link RedisKeys#CIRCUITS}, origin → record
 * ({@link CircuitRecord}), shared by every instance on the store. Each write is one {@code breaker_*} script, so it
 * reads, decides and writes atomically by Redis's clock; each read is one command. O(1) per call but
 * {@link #circuits()}, O(origins). The writes do not wait for replicas ({@code minReplicas}): a circuit is soft state,
 * and one lost in a failover only means its failures are counted again.
 */
final class RedisCircuitBreakers implements CircuitBreakers {
    private static final Logger LOG = LoggerFactory.getLogger(RedisCircuitBreakers.class);
    private static final List<String> KEYS = List.of(RedisKeys.CIRCUITS);

    private final RedisCalls calls;

    RedisCircuitBreakers(RedisCalls calls) {
        this.calls = calls;
    }

    @Override
    public OriginCircuit recordFailure(String origin, BreakerPolicy policy) {
        Objects.requireNonNull(policy, "policy");
        String record = (String) eval("record a failure of " + origin, Op.BREAKER_FAILURE, origin,
                Integer.toString(policy.failureThreshold()), Long.toString(policy.probeIntervalMs()),
                Long.toString(policy.maxProbeIntervalMs()));
        return CircuitRecord.decode(origin, record);
    }

    @Override
    public OriginCircuit recordSuccess(String origin) {
        return CircuitRecord.decode(origin, (String) eval("record a success of " + origin, Op.BREAKER_SUCCESS, origin));
    }

    @Override
    public boolean claimProbe(String origin) {
        return (Long) eval("claim a probe of " + origin, Op.BREAKER_PROBE, origin) == 1;
    }

    @Override
    public void addHeld(String origin, long delta) {
        if (delta != 0) {
            eval("count the held jobs of " + origin, Op.BREAKER_HELD, origin, Long.toString(delta));
        }
    }

    @Override
    public OriginCircuit circuit(String origin) {
        Objects.requireNonNull(origin, "origin");
        return read(origin, calls.call("read the circuit of " + origin,
                () -> calls.client().hget(RedisKeys.CIRCUITS, origin)));
    }

    @Override
    public List<OriginCircuit> circuits() {
        Map<String, String> all = calls.call("read the circuits", () -> calls.client().hgetAll(RedisKeys.CIRCUITS));
        List<OriginCircuit> out = new ArrayList<>(all.size());
        all.forEach((origin, record) -> out.add(read(origin, record)));
        out.sort(Comparator.comparing(OriginCircuit::origin));
        return out;
    }

    private Object eval(String operation, Op op, String origin, String... more) {
        Objects.requireNonNull(origin, "origin");
        List<String> args = new ArrayList<>(1 + more.length);
        args.add(origin);
        args.addAll(List.of(more));
        return calls.call(operation, () -> calls.scripts().eval(op, KEYS, args));
    }

    /**
     * A record this code cannot read is taken as closed, as the scripts take it (they start it afresh at the next
     * write): a damaged circuit must not stop the deliveries to its origin, nor hide the other origins.
     */
    private static OriginCircuit read(String origin, String record) {
        try {
            return CircuitRecord.decode(origin, record);
        } catch (IllegalArgumentException e) {
            LOG.warn("The circuit of {} in {} cannot be read ({}); it counts as closed and is started"
                    + " afresh by the next failure or success recorded for it", origin, RedisKeys.CIRCUITS,
                    e.getMessage());
            return OriginCircuit.closed(origin);
        }
    }
}
