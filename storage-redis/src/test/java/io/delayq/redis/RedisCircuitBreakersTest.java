package io.delayq.redis;

import io.delayq.core.JobRef;
import io.delayq.core.breaker.BreakerPolicy;
import io.delayq.core.breaker.CircuitBreakers;
import io.delayq.core.breaker.OriginCircuit;
import io.delayq.redis.testing.TestRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/** What the circuit breaker scripts keep in Redis, read back raw (the {@code dq:circuits} row of the README). */
class RedisCircuitBreakersTest {
    private static final BreakerPolicy POLICY = new BreakerPolicy(true, 3, 200, 500, 10);
    private final String uri = TestRedis.sharedUri();
    private final String origin = "http://" + UUID.randomUUID() + ".test:80";
    private final RedisFixtures raw = new RedisFixtures(uri);
    private final RedisJobStore store = RedisJobStore.connect(uri);
    private final CircuitBreakers breakers = store.circuitBreakers();

    @AfterEach
    void close() {
        raw.redis().hdel(RedisKeys.CIRCUITS, origin, origin + "-2");
        for (String index : List.of(RedisKeys.CIRCUIT_ORIGINS, RedisKeys.CIRCUIT_CHANGES, RedisKeys.CIRCUITS_NOTABLE)) {
            raw.redis().zrem(index, origin, origin + "-2"); // as the scripts forget a circuit: the record and its index
        }
        raw.redis().del(RedisKeys.held(origin), RedisKeys.heldByTopic(origin));
        store.close();
        raw.close();
    }

    private String record() {
        return raw.redis().hget(RedisKeys.CIRCUITS, origin);
    }

    private static String b36(long n) {
        return Long.toString(n, 36);
    }

    @Test
    void aCircuitIsOneCompactFieldOfOneHash() {
        breakers.recordFailure(origin, POLICY);
        assertThat(record()).isEqualTo("C|1|||0|0|0");
        breakers.recordFailure(origin, POLICY);
        OriginCircuit open = breakers.recordFailure(origin, POLICY);
        assertThat(raw.redis().type(RedisKeys.CIRCUITS)).isEqualTo("hash");
        assertThat(record()).as("open since openedAt, next probe one interval (200 = 5k) later")
                .isEqualTo("O|3|" + b36(open.openedAt()) + "||" + b36(open.openedAt() + 200) + "|5k|0");
        breakers.updateHeld(origin, jobs(40), List.of());
        OriginCircuit closed = breakers.recordSuccess(origin);
        assertThat(record()).isEqualTo("C|0|" + b36(open.openedAt()) + "|" + b36(closed.closedAt()) + "|0|0|14");
        assertThat(CircuitRecord.decode(origin, record())).isEqualTo(closed).isEqualTo(breakers.circuit(origin));
    }

    @Test
    void callsAboutAnOriginWithoutARecordWriteNothing() {
        assertThat(breakers.recordSuccess(origin)).isEqualTo(OriginCircuit.closed(origin));
        breakers.updateHeld(origin, List.of(), jobs(3));
        assertThat(breakers.claimProbe(origin)).isFalse();
        assertThat(raw.redis().hexists(RedisKeys.CIRCUITS, origin)).as("a healthy origin costs no memory").isFalse();

        breakers.updateHeld(origin, jobs(2), List.of());
        assertThat(breakers.circuit(origin).heldJobs()).isEqualTo(2);
        assertThat(breakers.circuit(origin).isOpen()).isFalse();
    }

    /**
     * A held set written by the version before the counts by topic: its members count for no topic, and their release
     * lowers no count (the counts start at the upgrade), while the circuit's own count is the set's size as before.
     */
    @Test
    void membersHeldBeforeTheCountsByTopicExistedCountForNoTopic() {
        long before = System.currentTimeMillis() - 60_000;
        raw.redis().zadd(RedisKeys.held(origin), before, JobRefs.member(new JobRef("t", "old-0")));
        raw.redis().zadd(RedisKeys.held(origin), before, JobRefs.member(new JobRef("t", "old-1")));

        breakers.updateHeld(origin, List.of(new JobRef("t", "new-0")), List.of());
        assertThat(breakers.heldByTopic(origin)).isEqualTo(Map.of("t", 1L));
        assertThat(breakers.circuit(origin).heldJobs()).isEqualTo(3);

        breakers.updateHeld(origin, List.of(), List.of(new JobRef("t", "old-0")));
        assertThat(breakers.heldByTopic(origin)).as("an old member's release leaves the new one counted")
                .isEqualTo(Map.of("t", 1L));
        breakers.updateHeld(origin, List.of(), List.of(new JobRef("t", "new-0")));
        breakers.updateHeld(origin, List.of(), List.of(new JobRef("t", "new-0"), new JobRef("t", "old-1")));
        assertThat(breakers.heldByTopic(origin)).isEmpty();
        assertThat(breakers.circuit(origin).heldJobs()).isZero();
        assertThat(raw.redis().exists(RedisKeys.heldByTopic(origin))).as("gone with the emptied set").isFalse();
    }

    /** Counts beside no set (the set deleted by an earlier version's sweep during a rolling upgrade) count nothing. */
    @Test
    void countsLeftWithoutTheirSetAreDropped() {
        raw.redis().hset(RedisKeys.heldByTopic(origin), Map.of("", "1", "t", "5", "u", "2"));

        breakers.updateHeld(origin, List.of(new JobRef("t", "j")), List.of());
        assertThat(breakers.heldByTopic(origin)).isEqualTo(Map.of("t", 1L));
    }

    @Test
    void aDamagedRecordCountsAsClosedAndIsStartedAfresh() {
        raw.redis().hset(RedisKeys.CIRCUITS, origin, "O|not a circuit");
        breakers.recordFailure(origin + "-2", POLICY);
        assertThat(breakers.circuit(origin)).isEqualTo(OriginCircuit.closed(origin));
        assertThat(breakers.circuits()).as("it hides no other origin, and the list is by origin")
                .extracting(OriginCircuit::origin).containsSubsequence(origin, origin + "-2");
        assertThat(breakers.claimProbe(origin)).isFalse();

        assertThat(breakers.recordFailure(origin, POLICY).consecutiveFailures()).isEqualTo(1);
        assertThat(record()).isEqualTo("C|1|||0|0|0");
    }

    @Test
    void theProbeIntervalFollowsAPolicyChangedWhileTheCircuitIsOpen() {
        BreakerPolicy quick = new BreakerPolicy(true, 1, 100, 100, 10);
        assertThat(breakers.recordFailure(origin, quick).probeIntervalMs()).isEqualTo(100);
        BreakerPolicy slow = new BreakerPolicy(true, 1, 1_000, 5_000, 10);
        assertThat(breakers.recordFailure(origin, slow).probeIntervalMs()).as("not below the first interval")
                .isEqualTo(1_000);
        assertThat(breakers.recordFailure(origin, slow).probeIntervalMs()).isEqualTo(2_000);
        assertThat(breakers.recordFailure(origin, quick).probeIntervalMs()).as("not above the cap").isEqualTo(100);
    }

    private static List<io.delayq.core.JobRef> jobs(int n) {
        return java.util.stream.IntStream.range(0, n).mapToObj(i -> new io.delayq.core.JobRef("t", "held-" + i))
                .toList();
    }
}
