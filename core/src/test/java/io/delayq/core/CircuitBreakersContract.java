package io.delayq.core;

import io.delayq.core.breaker.BreakerPolicy;
import io.delayq.core.breaker.CircuitBreakers;
import io.delayq.core.breaker.OriginCircuit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What every store's {@link CircuitBreakers} promises beyond {@link JobStoreContract}'s circuit tests (issue 26): the
 * held-jobs count is the number of distinct jobs held (finding 7), and so are its counts by topic (issue "many
 * teams"); the record of the origins each topic's jobs use is bounded, keeps the most recent, and is per topic. Run
 * against a real backend by each store module; each test uses origins and topics of its own.
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

    // ---------------------------------------------------------------- the origins of topics (issue "many teams")

    /** Now, so that what a test writes expires from a shared server a day or two later (Redis keys' expiry). */
    private static final long NOW = System.currentTimeMillis();

    @Test
    void theOriginsOfEachTopicAreRecordedApart() {
        String orders = "orders-" + run;
        String invoices = "invoices-" + run;
        String unused = "unused-" + run;
        String a = origin("a");
        String b = origin("b");
        String c = origin("c");

        breakers.recordOrigins(Map.of(orders, Set.of(a, b), invoices, Set.of(b)), NOW);
        breakers.recordOrigins(Map.of(orders, Set.of(a)), NOW + 1_000); // used again: still once
        breakers.recordOrigins(Map.of(invoices, Set.of(c)), NOW + 2_000);

        assertThat(breakers.originsOf(List.of(orders, invoices, unused), NOW + 3_000)).as("topics with none left out")
                .isEqualTo(Map.of(orders, Set.of(a, b), invoices, Set.of(b, c)));
        assertThat(breakers.originsOf(List.of(orders), NOW + 3_000)).as("only the topics asked for")
                .isEqualTo(Map.of(orders, Set.of(a, b)));
        assertThat(breakers.originsOf(List.of(unused), NOW + 3_000)).isEmpty();
    }

    @Test
    void emptyInputWritesAndReadsNothing() {
        String topic = "empty-" + run;
        breakers.recordOrigins(Map.of(), NOW);
        breakers.recordOrigins(Map.of(topic, Set.of()), NOW);

        assertThat(breakers.originsOf(List.of(), NOW)).isEmpty();
        assertThat(breakers.originsOf(List.of(topic), NOW)).isEmpty();
    }

    @Test
    void aTopicKeepsItsMostRecentlyUsedOriginsUpToTheBound() {
        String topic = "bounded-" + run;
        String other = "bounded-other-" + run;
        int max = CircuitBreakers.MAX_ORIGINS_PER_TOPIC;
        List<String> origins = IntStream.range(0, max + 6).mapToObj(i -> origin("o" + i)).toList();
        breakers.recordOrigins(Map.of(other, Set.of(origins.get(0))), NOW);
        for (int i = 0; i < origins.size(); i++) { // one a second, o0 first: the first six are the oldest
            breakers.recordOrigins(Map.of(topic, Set.of(origins.get(i))), NOW + i * 1_000L);
        }
        long now = NOW + origins.size() * 1_000L;

        assertThat(breakers.originsOf(List.of(topic), now).get(topic)).as("the %d most recently used", max)
                .containsExactlyInAnyOrderElementsOf(origins.subList(6, origins.size()));
        assertThat(breakers.originsOf(List.of(other), now)).as("another topic's own record is untouched")
                .isEqualTo(Map.of(other, Set.of(origins.get(0))));

        // the oldest kept one used again, then a new one: the one used least recently goes, not the renewed one
        breakers.recordOrigins(Map.of(topic, Set.of(origins.get(6))), now);
        String fresh = origin("fresh");
        breakers.recordOrigins(Map.of(topic, Set.of(fresh)), now + 1_000);
        Set<String> kept = breakers.originsOf(List.of(topic), now + 1_000).get(topic);
        assertThat(kept).hasSize(max).contains(origins.get(6), fresh).doesNotContain(origins.get(7));

        // one call with more than the bound for a topic keeps the bound
        String crowded = "crowded-" + run;
        Set<String> many = new LinkedHashSet<>(IntStream.range(0, max + 3).mapToObj(i -> origin("m" + i)).toList());
        breakers.recordOrigins(Map.of(crowded, many), NOW);
        assertThat(breakers.originsOf(List.of(crowded), NOW).get(crowded)).hasSize(max).isSubsetOf(many);
    }

    @Test
    void aLastUseIsNeverLoweredAndOldUsesAgeOut() {
        String topic = "aged-" + run;
        String early = origin("early");
        String late = origin("late");
        long retention = CircuitBreakers.ORIGINS_RETENTION_MS;
        breakers.recordOrigins(Map.of(topic, Set.of(early, late)), NOW);
        breakers.recordOrigins(Map.of(topic, Set.of(late)), NOW + 10_000);
        breakers.recordOrigins(Map.of(topic, Set.of(late)), NOW + 5_000); // an instance whose clock is behind

        assertThat(breakers.originsOf(List.of(topic), NOW + retention).get(topic)).containsExactlyInAnyOrder(early,
                late);
        assertThat(breakers.originsOf(List.of(topic), NOW + retention + 5_000).get(topic))
                .as("early is past the retention; late's use at +10 s was kept over the later write of +5 s")
                .containsExactly(late);

        breakers.recordOrigins(Map.of(topic, Set.of(origin("newer"))), NOW + retention + 20_000);
        assertThat(breakers.originsOf(List.of(topic), NOW + retention + 20_000).get(topic))
                .containsExactly(origin("newer"));
    }

    @Test
    void aDeletedOrForgottenTopicsOriginsGoWithIt() {
        String deleted = "deleted-" + run;
        String idle = "idle-" + run;
        store.putSettings(deleted, new TopicSettings(null, 4, null, null, null, null));
        store.enqueue(NewJob.delayed(idle, "j", "{}", 60_000, 1));
        store.cancel(new JobRef(idle, "j"));
        breakers.recordOrigins(Map.of(deleted, Set.of(origin("gone")), idle, Set.of(origin("gone"))), NOW);
        assertThat(breakers.originsOf(List.of(deleted, idle), NOW)).hasSize(2);

        assertThat(store.deleteTopic(deleted)).isTrue();
        // the first look may only mark it idle (Redis); with an idle time of 0 the second forgets it
        assertThat(store.forgetIfIdle(idle, 0) || store.forgetIfIdle(idle, 0)).as("forgotten").isTrue();

        assertThat(breakers.originsOf(List.of(deleted, idle), NOW)).isEmpty();
    }
}
