package io.delayq.service.breaker;

import io.delayq.core.JobStore;
import io.delayq.core.breaker.CircuitBreakers;
import io.delayq.redis.RedisJobStore;
import io.delayq.redis.testing.TestRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The engine's notes of the origins topics use, on a real Redis: written by the flush, not by the note; a pair noted
 * again within a minute is not written again (seen by its last use, which decides when it ages out); a flush the store
 * refuses keeps its pairs for the next one.
 */
class OriginUsesTest {
    private static final long RETENTION = CircuitBreakers.ORIGINS_RETENTION_MS;
    private static JobStore store;

    private final String run = UUID.randomUUID().toString().substring(0, 8);
    private final AtomicLong clock = new AtomicLong(System.currentTimeMillis());
    private final OriginUses uses = new OriginUses(clock::get);

    @BeforeAll
    static void connect() {
        store = RedisJobStore.connect(TestRedis.sharedUri());
    }

    @AfterAll
    static void disconnect() {
        store.close();
    }

    @Test
    void notesAreWrittenByTheFlushOnlyAndAPairAtMostOnceAMinute() {
        CircuitBreakers circuits = store.circuitBreakers();
        String orders = "orders-" + run;
        String invoices = "invoices-" + run;
        String a = "https://a-" + run + ".test:443";
        String b = "https://b-" + run + ".test:443";
        long start = clock.get();

        uses.note(orders, a);
        uses.note(orders, a);
        uses.note(orders, b);
        uses.note(invoices, a);
        assertThat(circuits.originsOf(List.of(orders, invoices), start)).as("nothing written by a note").isEmpty();

        uses.flush(circuits);
        assertThat(circuits.originsOf(List.of(orders, invoices), start))
                .isEqualTo(Map.of(orders, Set.of(a, b), invoices, Set.of(a)));

        clock.addAndGet(30_000);
        uses.note(orders, a); // within the minute: not written again, so its last use stays at the start
        uses.flush(circuits);
        long pastFirstUse = start + RETENTION + 10_000;
        assertThat(circuits.originsOf(List.of(orders), pastFirstUse)).as("last used at the start").isEmpty();

        clock.addAndGet(31_000);
        uses.note(orders, a); // a minute on: written again
        uses.flush(circuits);
        assertThat(circuits.originsOf(List.of(orders), pastFirstUse)).isEqualTo(Map.of(orders, Set.of(a)));
    }

    @Test
    void aFlushTheStoreRefusesIsWrittenByTheNext() {
        String topic = "outage-" + run;
        String origin = "https://down-" + run + ".test:443";
        uses.note(topic, origin);
        JobStore closed = RedisJobStore.connect(TestRedis.sharedUri());
        CircuitBreakers down = closed.circuitBreakers();
        closed.close(); // its client refuses every call, as a store that cannot be reached fails them
        assertThatThrownBy(() -> uses.flush(down)).as("the caller logs it").isInstanceOf(RuntimeException.class);
        uses.note(topic, origin); // noted within the minute: waits in the kept pairs, not as a second one

        uses.flush(store.circuitBreakers());

        assertThat(store.circuitBreakers().originsOf(List.of(topic), clock.get()))
                .isEqualTo(Map.of(topic, Set.of(origin)));
    }
}
