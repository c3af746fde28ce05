package io.delayq.core;

import io.delayq.core.breaker.BreakerPolicy;
import io.delayq.core.breaker.CircuitBreakers;
import io.delayq.core.breaker.OriginCircuit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What every store's {@link CircuitBreakers} promises beyond {@link JobStoreContract}'s circuit tests (issue 26): the
 * held-jobs count is the number of distinct jobs held (finding 7), and so are its counts by topic (issue "many
 * teams"). Run against a real backend by each store module; each test uses origins of its own.
 */
public abstract class CircuitBreakersContract {

    /** A new store on the shared test backend; closed after each test. */
    protected abstract JobStore newStore();

    protected JobStore store;
    protected CircuitBreakers breakers;
    private String run;

    @BeforeEach
    void open() {
        store = newStore();
        breakers = store.circuitBreakers();
        run = UUID.randomUUID().toString().substring(0, 8);
    }

    @AfterEach
    void close() {
        store.close();
    }

    protected String origin(String name) {
        return "https://" + name + "-" + run + ".test:443";
    }

    private List<JobRef> jobs(String prefix, int n) {
        return IntStream.range(0, n).mapToObj(i -> new JobRef("circuits-" + run, prefix + "-" + i)).toList();
    }

    @Test
    void theHeldCountIsTheNumberOfDistinctJobsHeld() {
        String origin = origin("held");
        BreakerPolicy policy = new BreakerPolicy(true, 1, 60_000, 60_000, 10);
        assertThat(breakers.recordFailure(origin, policy).isOpen()).isTrue();
        List<JobRef> held = jobs("h", 5);

        breakers.updateHeld(origin, held, List.of());
        breakers.updateHeld(origin, held.subList(0, 3), List.of()); // held again as they came back: still five
        assertThat(breakers.circuit(origin).heldJobs()).isEqualTo(5);

        breakers.updateHeld(origin, List.of(), held.subList(0, 2));
        breakers.updateHeld(origin, List.of(), held.subList(0, 2)); // released twice (two instances saw it)
        breakers.updateHeld(origin, List.of(), jobs("never", 3)); // never held
        OriginCircuit circuit = breakers.circuit(origin);
        assertThat(circuit.heldJobs()).isEqualTo(3);
        assertThat(breakers.heldJobs(origin, 10)).containsExactlyInAnyOrderElementsOf(held.subList(2, 5));
        assertThat(breakers.heldJobs(origin, 2)).hasSize(2);

        assertThat(breakers.recordSuccess(origin).heldJobs()).as("closing releases nothing by itself").isEqualTo(3);
        breakers.updateHeld(origin, List.of(), held);
        assertThat(breakers.circuit(origin).heldJobs()).isZero();
        assertThat(breakers.heldJobs(origin, 10)).isEmpty();
    }

    // ---------------------------------------------------------------- by topic (issue "many teams")

    private List<JobRef> jobsOf(String topic, String prefix, int n) {
        return IntStream.range(0, n).mapToObj(i -> new JobRef(topic, prefix + "-" + i)).toList();
    }

    @Test
    void theHeldJobsAreCountedByTopicOnceEachAndNeverBelowZero() {
        String origin = origin("by-topic");
        String orders = "orders-" + run;
        String invoices = "invoices-" + run;
        breakers.recordFailure(origin, new BreakerPolicy(true, 1, 60_000, 60_000, 10));
        List<JobRef> ofOrders = jobsOf(orders, "o", 3);
        List<JobRef> ofInvoices = jobsOf(invoices, "i", 2);
        assertThat(breakers.heldByTopic(origin)).as("nothing held yet").isEmpty();

        breakers.updateHeld(origin, List.of(ofOrders.get(0), ofInvoices.get(0), ofOrders.get(1), ofOrders.get(2),
                ofInvoices.get(1)), List.of());
        breakers.updateHeld(origin, ofOrders.subList(0, 2), List.of()); // held again as they came back: once each
        breakers.updateHeld(origin, List.of(ofOrders.get(2), ofOrders.get(2)), List.of()); // twice in one change
        assertThat(breakers.heldByTopic(origin)).isEqualTo(Map.of(orders, 3L, invoices, 2L));
        assertThat(breakers.circuit(origin).heldJobs()).as("the counts add up to the circuit's").isEqualTo(5);

        breakers.updateHeld(origin, List.of(), List.of(ofOrders.get(0)));
        breakers.updateHeld(origin, List.of(), List.of(ofOrders.get(0))); // released twice (two instances saw it)
        breakers.updateHeld(origin, List.of(), jobsOf(orders, "never", 2)); // never held, of a topic with some held
        breakers.updateHeld(origin, List.of(), jobsOf("elsewhere-" + run, "never", 1)); // of a topic with none
        assertThat(breakers.heldByTopic(origin)).isEqualTo(Map.of(orders, 2L, invoices, 2L));

        breakers.updateHeld(origin, List.of(), ofInvoices);
        breakers.updateHeld(origin, List.of(), ofInvoices); // again, at zero: not below it
        assertThat(breakers.heldByTopic(origin)).as("a topic with none held is left out")
                .isEqualTo(Map.of(orders, 2L));
        breakers.updateHeld(origin, ofInvoices.subList(0, 1), List.of());
        assertThat(breakers.heldByTopic(origin)).as("held again after its count went to zero, counted from there")
                .isEqualTo(Map.of(orders, 2L, invoices, 1L));

        breakers.updateHeld(origin, List.of(), List.of(ofOrders.get(0), ofOrders.get(1), ofOrders.get(2),
                ofInvoices.get(0), ofInvoices.get(0)));
        assertThat(breakers.heldByTopic(origin)).isEmpty();
        assertThat(breakers.circuit(origin).heldJobs()).isZero();
    }

    @Test
    void anOriginWithoutHeldJobsHasNoCountsByTopic() {
        String origin = origin("by-topic-none");
        assertThat(breakers.heldByTopic(origin)).as("no record at all").isEmpty();
        breakers.updateHeld(origin, List.of(), jobs("x", 2));
        assertThat(breakers.heldByTopic(origin)).as("only releases").isEmpty();
    }

    @Test
    void theCountsByTopicGoWithTheForgottenCircuit() throws InterruptedException {
        String origin = origin("by-topic-idle");
        breakers.recordFailure(origin, new BreakerPolicy(true, 1, 60_000, 60_000, 10));
        List<JobRef> held = jobsOf("gone-" + run, "g", 2);
        breakers.updateHeld(origin, held, List.of());
        breakers.recordSuccess(origin); // closed, its two held jobs never came back
        assertThat(breakers.heldByTopic(origin)).isEqualTo(Map.of("gone-" + run, 2L));
        Thread.sleep(1_500);

        assertThat(breakers.expireIdle(1_000, 100_000)).isGreaterThanOrEqualTo(1);

        assertThat(breakers.circuit(origin)).isEqualTo(OriginCircuit.closed(origin));
        assertThat(breakers.heldByTopic(origin)).as("the counts go with the held set").isEmpty();
        breakers.updateHeld(origin, held.subList(0, 1), List.of());
        assertThat(breakers.heldByTopic(origin)).as("held again: counted afresh, nothing left over")
                .isEqualTo(Map.of("gone-" + run, 1L));
        breakers.updateHeld(origin, List.of(), held);
        assertThat(breakers.heldByTopic(origin)).isEmpty();
    }

    @Test
    void releasingJobsOfAnOriginWithoutARecordCreatesNone() {
        String origin = origin("none");
        breakers.updateHeld(origin, List.of(), jobs("x", 2));
        assertThat(breakers.circuits()).extracting(OriginCircuit::origin).doesNotContain(origin);
        assertThat(breakers.circuit(origin).heldJobs()).isZero();
    }

    @Test
    void jobIdsAndTopicsWithSeparatorsAreKeptApart() {
        String origin = origin("names");
        List<JobRef> tricky = List.of(new JobRef("a", "b:c"), new JobRef("a:b", "c"), new JobRef("a/b", "c"),
                new JobRef("a", "b/c"));
        breakers.updateHeld(origin, tricky, List.of());
        assertThat(breakers.circuit(origin).heldJobs()).isEqualTo(4);
        assertThat(breakers.heldByTopic(origin)).isEqualTo(Map.of("a", 2L, "a:b", 1L, "a/b", 1L));
        assertThat(breakers.heldJobs(origin, 10)).containsExactlyInAnyOrderElementsOf(tricky);
        breakers.updateHeld(origin, List.of(), List.of(new JobRef("a", "b:c")));
        assertThat(breakers.heldJobs(origin, 10)).hasSize(3).doesNotContain(new JobRef("a", "b:c"));
        assertThat(breakers.heldByTopic(origin)).isEqualTo(Map.of("a", 1L, "a:b", 1L, "a/b", 1L));
    }

    // ---------------------------------------------------------------- bounds (finding 5)

    @Test
    void beyondTheBoundANewOriginIsNotTrackedWhileKnownOnesStillCount() {
        BreakerPolicy policy = new BreakerPolicy(true, 3, 60_000, 60_000, 10);
        String known = origin("known");
        assertThat(breakers.recordFailure(known, policy).consecutiveFailures()).isEqualTo(1);
        int bound = (int) breakers.count();

        String fresh = origin("fresh");
        assertThat(breakers.recordFailure(fresh, policy, bound)).as("a new origin at the bound").isNull();
        assertThat(breakers.circuit(fresh)).isEqualTo(OriginCircuit.closed(fresh));
        assertThat(breakers.count()).isEqualTo(bound);
        assertThat(breakers.recordFailure(known, policy, bound).consecutiveFailures())
                .as("an origin with a record still counts at the bound").isEqualTo(2);
        assertThat(breakers.recordFailure(fresh, policy, bound + 1)).as("below the bound again").isNotNull();
    }

    @Test
    void closedCircuitsIdleLongerThanTheExpiryAreForgottenOpenOnesNever() throws InterruptedException {
        BreakerPolicy opensAtOnce = new BreakerPolicy(true, 1, 60_000, 60_000, 10);
        String closedIdle = origin("closed-idle");
        String openIdle = origin("open-idle");
        breakers.recordFailure(closedIdle, opensAtOnce);
        breakers.updateHeld(closedIdle, jobs("c", 2), List.of());
        breakers.recordSuccess(closedIdle); // closed, its two held jobs never came back
        breakers.recordFailure(openIdle, opensAtOnce);
        Thread.sleep(1_500);
        String closedRecent = origin("closed-recent");
        breakers.recordFailure(closedRecent, new BreakerPolicy(true, 5, 60_000, 60_000, 10));

        int forgotten = breakers.expireIdle(1_000, 100_000);

        assertThat(forgotten).isGreaterThanOrEqualTo(1);
        assertThat(breakers.circuit(closedIdle)).isEqualTo(OriginCircuit.closed(closedIdle));
        assertThat(breakers.heldJobs(closedIdle, 10)).as("its held set goes with it").isEmpty();
        assertThat(breakers.circuit(openIdle).isOpen()).as("an open circuit is never forgotten").isTrue();
        assertThat(breakers.circuit(closedRecent).consecutiveFailures()).isEqualTo(1);
        assertThat(breakers.circuits()).extracting(OriginCircuit::origin)
                .contains(openIdle, closedRecent).doesNotContain(closedIdle);
        assertThat(breakers.expireIdle(1_000, 100_000)).as("an open circuit is not looked at again at once")
                .isZero();
        assertThat(breakers.circuit(openIdle).isOpen()).isTrue();
    }

    @Test
    void pagesListEveryCircuitOnceInOriginOrder() {
        BreakerPolicy policy = new BreakerPolicy(true, 5, 60_000, 60_000, 10);
        List<String> mine = IntStream.range(0, 7).mapToObj(i -> origin("page-" + i)).sorted().toList();
        mine.forEach(o -> breakers.recordFailure(o, policy));

        List<String> seen = new java.util.ArrayList<>();
        String after = null;
        int pages = 0;
        while (true) {
            List<OriginCircuit> page = breakers.circuits(after, 3);
            assertThat(page.size()).isLessThanOrEqualTo(3);
            page.forEach(c -> seen.add(c.origin()));
            pages++;
            if (page.size() < 3) {
                break;
            }
            after = page.get(page.size() - 1).origin();
        }
        assertThat(seen).as("in origin order").isSorted().doesNotHaveDuplicates();
        assertThat(seen.stream().filter(mine::contains).toList()).containsExactlyElementsOf(mine);
        assertThat(pages).isGreaterThanOrEqualTo(3);
        assertThat(breakers.circuits(mine.get(6), 5)).extracting(OriginCircuit::origin).doesNotContain(mine.get(6));
    }

    @Test
    void theNotableCircuitsAreTheOpenOnesAndThoseHoldingJobs() {
        String open = origin("n-open");
        String holding = origin("n-holding");
        String quiet = origin("n-quiet");
        breakers.recordFailure(open, new BreakerPolicy(true, 1, 60_000, 60_000, 10));
        breakers.recordFailure(holding, new BreakerPolicy(true, 1, 60_000, 60_000, 10));
        breakers.updateHeld(holding, jobs("n", 1), List.of());
        breakers.recordSuccess(holding);
        breakers.recordFailure(quiet, new BreakerPolicy(true, 5, 60_000, 60_000, 10));

        List<String> notable = breakers.notableCircuits(100_000).stream().map(OriginCircuit::origin).toList();
        assertThat(notable).contains(open, holding).doesNotContain(quiet).isSorted();

        breakers.updateHeld(holding, List.of(), jobs("n", 1));
        assertThat(breakers.notableCircuits(100_000)).extracting(OriginCircuit::origin).doesNotContain(holding);
    }
}
