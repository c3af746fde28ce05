package io.delayq.core;

import io.delayq.core.breaker.BreakerPolicy;
import io.delayq.core.breaker.CircuitBreakers;
import io.delayq.core.breaker.CircuitState;
import io.delayq.core.breaker.OriginCircuit;
import io.delayq.core.history.LatenessBuckets;
import io.delayq.core.history.TopicMinute;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The behaviour every {@link JobStore} promises, run against a real backend by each store module
 * ({@code class RedisJobStoreContractTest extends JobStoreContract}). Every test works in its own topic, so test
 * classes may share one server and run side by side; nothing is flushed.
 *
 * <p>Time-dependent tests use delays of a few hundred ms and check "not before" against the store's own clock.
 */
public abstract class JobStoreContract {
    private static final String PAYLOAD = "{\"order\":42,\"note\":\"close if unpaid\"}";

    /** A new store on the shared test backend; closed after each test. */
    protected abstract JobStore newStore();

    /**
     * A new store on the shared test backend that forgets finished jobs {@code retentionMs} after they finish (the
     * store's background or inline trimming keeps running as configured otherwise).
     */
    protected abstract JobStore newStoreWithRetention(long retentionMs);

    /**
     * A store pointed at a backend that cannot be reached (e.g. a closed port). Building it may fail; either way the
     * failure is a {@link StoreException} with {@link StoreStatus#UNAVAILABLE}.
     */
    protected abstract JobStore newUnreachableStore();

    /**
     * Spoils the stored form of a scheduled job, through {@code store}'s own connection, so that the store's code can
     * no longer decode it (as a record written by an incompatible version, or damaged, would be) while the store's
     * transitions can still move it: e.g. a backoff JSON of an unknown type.
     */
    protected abstract void makeUnreadable(JobStore store, JobRef ref);

    protected JobStore store;
    protected String topic;

    @BeforeEach
    void openStore() {
        store = newStore();
        topic = "t-" + UUID.randomUUID();
    }

    @AfterEach
    void closeStore() {
        store.close();
    }

    // ------------------------------------------------------------------ lifecycle

    @Test
    void aJobGoesFromScheduledThroughLeasedToSucceeded() {
        EnqueueResult result = store.enqueue(NewJob.delayed(topic, "j1", PAYLOAD, 0, 3));
        assertThat(result.status()).isEqualTo(StoreStatus.OK);
        assertThat(result.created()).isTrue();
        assertThat(result.job().state()).isEqualTo(JobState.SCHEDULED);
        assertThat(result.job().payload()).isEqualTo(PAYLOAD);
        assertThat(find("j1").state()).isEqualTo(JobState.SCHEDULED);

        Lease lease = awaitLease(Delivery.PULL, 2_000);
        assertThat(lease.job().id()).isEqualTo("j1");
        assertThat(lease.job().state()).isEqualTo(JobState.LEASED);
        assertThat(lease.attempt()).isEqualTo(1);
        assertThat(lease.job().payload()).isEqualTo(PAYLOAD);
        assertThat(find("j1").state()).isEqualTo(JobState.LEASED);

        assertThat(store.ack(List.of(LeaseRef.of(lease)))).containsExactly(StoreStatus.OK);
        Job done = find("j1");
        assertThat(done.state()).isEqualTo(JobState.SUCCEEDED);
        assertThat(done.attempts()).isEqualTo(1);
        assertThat(done.finishedAt()).isNotNull().isGreaterThanOrEqualTo(done.createdAt());
        assertThat(done.history()).extracting(Attempt::number).containsExactly(1);
        assertThat(done.payload()).isEqualTo(PAYLOAD);
        assertThat(store.reserve(topic, Delivery.PULL, 10, 1_000).leases()).isEmpty();
    }

    @Test
    void everyOptionOfAJobSurvivesTheRoundTrip() {
        Backoff backoff = new Backoff.Schedule(List.of(io.dropwizard.util.Duration.seconds(15),
                io.dropwizard.util.Duration.minutes(3)));
        Callback callback = new Callback("https://example.test/hook", Map.of("X-Token", "abc"));
        NewJob job = new NewJob(topic, "opts", "[1,\"two\",{\"3\":null}]", 0L, null, 7, backoff, callback, 1_234L, true,
                Delivery.PUSH);
        store.enqueue(job);
        Job stored = find("opts");
        assertThat(stored.maxAttempts()).isEqualTo(7);
        assertThat(stored.backoff()).isEqualTo(backoff);
        assertThat(stored.callback()).isEqualTo(callback);
        assertThat(stored.timeoutMs()).isEqualTo(1_234L);
        assertThat(stored.broadcast()).isTrue();
        assertThat(stored.delivery()).isEqualTo(Delivery.PUSH);
        assertThat(stored.payload()).isEqualTo("[1,\"two\",{\"3\":null}]");

        Lease lease = awaitLease(Delivery.PUSH, 2_000);
        assertThat(lease.job().callback()).isEqualTo(callback);
        assertThat(lease.job().backoff()).isEqualTo(backoff);
    }

    @Test
    void aTraceContextTravelsWithItsJobToTheLeaseAndTheOutbox() {
        TraceContext trace = new TraceContext("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
                "congo=t61rcWkgMzE,rojo=00f067aa0ba902b7");
        store.enqueue(NewJob.delayed(topic, "traced", PAYLOAD, 0, 1).withTrace(trace));
        store.enqueue(NewJob.delayed(topic, "untraced", PAYLOAD, 60_000, 1));
        assertThat(find("traced").trace()).isEqualTo(trace);
        assertThat(find("untraced").trace()).isNull();

        Lease lease = awaitLease(Delivery.PULL, 2_000);
        assertThat(lease.job().id()).isEqualTo("traced");
        assertThat(lease.job().trace()).isEqualTo(trace);

        // the final transition copies the job to the outbox: the archive keeps the trace as well
        assertThat(store.nack(LeaseRef.of(lease), Failure.dead("gone", 410))).isEqualTo(StoreStatus.OK);
        assertThat(find("traced").trace()).isEqualTo(trace);
        List<OutboxEntry> mine = outboxOf(topic);
        assertThat(mine).extracting(e -> e.job().trace()).containsExactly(trace);
        store.deleteOutbox(mine);
    }

    @Test
    void aTraceContextWithoutTracestateStaysWithoutOne() {
        TraceContext trace = new TraceContext("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00", null);
        store.enqueue(List.of(NewJob.delayed(topic, "a", PAYLOAD, 0, 1).withTrace(trace)
                .withDelivery(Delivery.PUSH)));
        assertThat(find("a").trace()).isEqualTo(trace);
        Lease lease = awaitLease(Delivery.PUSH, 2_000);
        assertThat(lease.job().trace()).isEqualTo(trace);
        assertThat(lease.job().trace().tracestate()).isNull();
    }

    @Test
    void payloadsAreKeptByteForByte() {
        String tricky = "{\"s\":\"line\\nbreak \\u00e9 \u00e9 \u4e2d \\\"q\\\" \\/ \",\"n\":12345678901234567890,\"f\":1.0e-7}";
        store.enqueue(NewJob.delayed(topic, "tricky", tricky, 0, 1));
        assertThat(find("tricky").payload()).isEqualTo(tricky);
        assertThat(awaitLease(Delivery.PULL, 2_000).job().payload()).isEqualTo(tricky);
    }

    // ------------------------------------------------------------------ idempotency

    @Test
    void enqueueIsIdempotentPerIdAndRefusesOtherContent() {
        EnqueueResult first = store.enqueue(NewJob.delayed(topic, "same", PAYLOAD, 60_000, 3));
        EnqueueResult again = store.enqueue(NewJob.delayed(topic, "same", PAYLOAD, 60_000, 3));
        assertThat(again.status()).isEqualTo(StoreStatus.OK);
        assertThat(again.created()).isFalse();
        assertThat(again.job().createdAt()).isEqualTo(first.job().createdAt());
        assertThat(again.job().runAt()).isEqualTo(first.job().runAt());

        EnqueueResult conflict = store.enqueue(NewJob.delayed(topic, "same", "{\"other\":true}", 60_000, 3));
        assertThat(conflict.status()).isEqualTo(StoreStatus.CONFLICT);
        assertThat(conflict.created()).isFalse();
        assertThat(conflict.job().payload()).isEqualTo(PAYLOAD);
        assertThat(find("same").payload()).isEqualTo(PAYLOAD);

        EnqueueResult otherAttempts = store.enqueue(NewJob.delayed(topic, "same", PAYLOAD, 60_000, 4));
        assertThat(otherAttempts.status()).isEqualTo(StoreStatus.CONFLICT);
        assertThat(store.stats(topic).scheduled()).isEqualTo(1);
    }

    @Test
    void aFinishedJobStillCountsAsExisting() {
        store.enqueue(NewJob.delayed(topic, "fin", PAYLOAD, 0, 3));
        store.ack(List.of(LeaseRef.of(awaitLease(Delivery.PULL, 2_000))));
        EnqueueResult again = store.enqueue(NewJob.delayed(topic, "fin", PAYLOAD, 0, 3));
        assertThat(again.status()).isEqualTo(StoreStatus.OK);
        assertThat(again.created()).isFalse();
        assertThat(again.job().state()).isEqualTo(JobState.SUCCEEDED);
        assertThat(store.reserve(topic, Delivery.PULL, 10, 1_000).leases()).isEmpty();
    }

    @Test
    void aBatchAnswersEachJobInOrder() {
        store.enqueue(NewJob.delayed(topic, "old", PAYLOAD, 60_000, 3));
        List<EnqueueResult> results = store.enqueue(List.of(
                NewJob.delayed(topic, "new1", PAYLOAD, 60_000, 3),
                NewJob.delayed(topic, "old", PAYLOAD, 60_000, 3),
                NewJob.delayed(topic, "old", "{\"changed\":1}", 60_000, 3),
                NewJob.delayed(topic, "new2", PAYLOAD, 60_000, 3)));
        assertThat(results).extracting(EnqueueResult::status)
                .containsExactly(StoreStatus.OK, StoreStatus.OK, StoreStatus.CONFLICT, StoreStatus.OK);
        assertThat(results).extracting(EnqueueResult::created).containsExactly(true, false, false, true);
        assertThat(results).extracting(r -> r.job().id()).containsExactly("new1", "old", "old", "new2");
    }

    @Test
    void aBatchNamingAnIdTwiceCreatesItOnce() {
        List<EnqueueResult> results = store.enqueue(List.of(
                NewJob.delayed(topic, "twice", PAYLOAD, 60_000, 3),
                NewJob.delayed(topic, "twice", PAYLOAD, 60_000, 3),
                NewJob.delayed(topic, "twice", "{\"changed\":1}", 60_000, 3)));
        assertThat(results).extracting(EnqueueResult::status)
                .containsExactly(StoreStatus.OK, StoreStatus.OK, StoreStatus.CONFLICT);
        assertThat(results).extracting(EnqueueResult::created).containsExactly(true, false, false);
        assertThat(results.get(2).job().payload()).isEqualTo(PAYLOAD);
        assertThat(store.stats(topic).scheduled()).isEqualTo(1);
    }

    // ------------------------------------------------------------------ due times

    @Test
    void aJobIsNeverHandedOutBeforeItsRunAt() {
        EnqueueResult result = store.enqueue(NewJob.delayed(topic, "later", PAYLOAD, 300, 3));
        long runAt = result.job().runAt();
        assertThat(runAt).isGreaterThanOrEqualTo(result.job().createdAt() + 300);

        ReserveResult early = store.reserve(topic, Delivery.PULL, 10, 1_000);
        assertNothingBefore(early, runAt);

        Lease lease = early.leases().isEmpty() ? null : early.leases().get(0);
        long deadline = System.currentTimeMillis() + 3_000;
        while (lease == null && System.currentTimeMillis() < deadline) {
            ReserveResult r = store.reserve(topic, Delivery.PULL, 10, 1_000);
            if (!r.leases().isEmpty()) {
                assertThat(r.now()).as("leased by the store's clock at or after runAt").isGreaterThanOrEqualTo(runAt);
                lease = r.leases().get(0);
            } else {
                assertThat(r.now()).as("nothing handed out although due").isLessThan(runAt);
                sleep(15);
            }
        }
        assertThat(lease).as("the job became due").isNotNull();
        assertThat(store.now()).isGreaterThanOrEqualTo(runAt);
    }

    @Test
    void anAbsoluteRunAtIsHonoured() {
        long runAt = store.now() + 250;
        EnqueueResult result = store.enqueue(NewJob.at(topic, "abs", PAYLOAD, runAt, 3));
        assertThat(result.job().runAt()).isEqualTo(runAt);
        ReserveResult early = store.reserve(topic, Delivery.PULL, 1, 1_000);
        assertNothingBefore(early, runAt);
        Lease lease = early.leases().isEmpty() ? awaitLease(Delivery.PULL, 3_000) : early.leases().get(0);
        assertThat(store.now()).isGreaterThanOrEqualTo(runAt);
        assertThat(lease.job().runAt()).isEqualTo(runAt);
    }

    @Test
    void reserveHandsOutTheEarliestFirst() {
        long base = store.now() - 10_000;
        List<NewJob> jobs = new ArrayList<>();
        for (int i : List.of(3, 0, 4, 1, 2)) {
            jobs.add(NewJob.at(topic, "j" + i, PAYLOAD, base + i * 10L, 3));
        }
        store.enqueue(jobs);
        ReserveResult first = store.reserve(topic, Delivery.PULL, 3, 1_000);
        assertThat(first.leases()).extracting(l -> l.job().id()).containsExactly("j0", "j1", "j2");
        assertThat(first.nextDueAt()).isEqualTo(base + 30);
        ReserveResult rest = store.reserve(topic, Delivery.PULL, 10, 1_000);
        assertThat(rest.leases()).extracting(l -> l.job().id()).containsExactly("j3", "j4");
        assertThat(rest.nextDueAt()).isEqualTo(-1);
    }

    @Test
    void lanesDoNotMix() {
        store.enqueue(List.of(
                NewJob.delayed(topic, "pushed", PAYLOAD, 0, 3).withDelivery(Delivery.PUSH),
                NewJob.delayed(topic, "pulled", PAYLOAD, 0, 3)));
        sleep(5);
        ReserveResult pull = store.reserve(topic, Delivery.PULL, 10, 1_000);
        assertThat(pull.leases()).extracting(l -> l.job().id()).containsExactly("pulled");
        assertThat(store.reserve(topic, Delivery.PULL, 10, 1_000).leases()).isEmpty();
        ReserveResult push = store.reserve(topic, Delivery.PUSH, 10, 1_000);
        assertThat(push.leases()).extracting(l -> l.job().id()).containsExactly("pushed");
        assertThat(push.leases().get(0).job().delivery()).isEqualTo(Delivery.PUSH);
    }

    @Test
    void nextDueAtIsPerLane() {
        EnqueueResult push = store.enqueue(NewJob.delayed(topic, "p", PAYLOAD, 50_000, 3).withDelivery(Delivery.PUSH));
        EnqueueResult pull = store.enqueue(NewJob.delayed(topic, "q", PAYLOAD, 70_000, 3));
        assertThat(store.nextDueAt(topic, Delivery.PUSH)).isEqualTo(push.job().runAt());
        assertThat(store.nextDueAt(topic, Delivery.PULL)).isEqualTo(pull.job().runAt());
        assertThat(store.nextDueAt("t-" + UUID.randomUUID(), Delivery.PULL)).isEqualTo(-1);
    }

    // ------------------------------------------------------------------ leases

    @Test
    void anExpiredLeaseIsRedeliveredWithTheNextAttemptAndTheOldTokenIsRefused() {
        store.enqueue(NewJob.delayed(topic, "slow", PAYLOAD, 0, 3));
        Lease first = awaitLease(Delivery.PULL, 2_000, 300);
        assertThat(store.nextLeaseDeadline(topic)).isEqualTo(first.deadline());
        if (store.expireLeases(topic, 10) > 0) {
            assertThat(store.now()).as("a lease is taken back only after its deadline").isGreaterThanOrEqualTo(first.deadline());
            // a slow machine got past the deadline already: the redelivery checks below still hold
        } else {
            awaitTrue(() -> store.now() > first.deadline(), 2_000);
            assertThat(store.expireLeases(topic, 10)).isEqualTo(1);
        }

        Job back = find("slow");
        assertThat(back.state()).isEqualTo(JobState.SCHEDULED);
        assertThat(back.attempts()).isEqualTo(1);
        assertThat(back.history()).hasSize(1);
        assertThat(back.history().get(0).error()).isNotBlank();
        assertThat(store.nextLeaseDeadline(topic)).isEqualTo(-1);

        Lease second = awaitLease(Delivery.PULL, 2_000);
        assertThat(second.attempt()).isEqualTo(2);
        assertThat(second.token()).isNotEqualTo(first.token());
        assertThat(store.ack(List.of(LeaseRef.of(first)))).containsExactly(StoreStatus.STALE_LEASE);
        assertThat(store.nack(LeaseRef.of(first), Failure.retryAfter(0, "late", null))).isEqualTo(StoreStatus.STALE_LEASE);
        assertStale(() -> store.extend(LeaseRef.of(first), 10_000));
        assertThat(find("slow").state()).isEqualTo(JobState.LEASED);
        assertThat(store.ack(List.of(LeaseRef.of(second)))).containsExactly(StoreStatus.OK);
    }

    @Test
    void onlyTheCurrentTokenMayAckNackOrExtend() {
        store.enqueue(NewJob.delayed(topic, "tok", PAYLOAD, 0, 3));
        Lease lease = awaitLease(Delivery.PULL, 2_000);
        UUID bits = lease.token().toUuid();
        List<LeaseToken> wrongTokens = List.of(LeaseToken.random(),
                LeaseToken.of(new UUID(bits.getMostSignificantBits(), bits.getLeastSignificantBits() ^ 1)),
                LeaseToken.parse("1234567890123450001"), LeaseToken.parse(" 12 "));
        for (LeaseToken token : wrongTokens) {
            LeaseRef wrong = new LeaseRef(lease.ref(), token);
            assertThat(store.ack(List.of(wrong))).as("guessed token %s", token)
                    .containsExactly(StoreStatus.STALE_LEASE);
            assertThat(store.nack(wrong, Failure.dead("x", null))).isEqualTo(StoreStatus.STALE_LEASE);
            assertStale(() -> store.extend(wrong, 5_000));
        }
        Job unchanged = find("tok");
        assertThat(unchanged.state()).isEqualTo(JobState.LEASED);
        assertThat(unchanged.history()).isEmpty();

        LeaseRef missing = new LeaseRef(new JobRef(topic, "nope"), lease.token());
        assertThat(store.ack(List.of(missing))).containsExactly(StoreStatus.NOT_FOUND);
        assertThat(store.nack(missing, Failure.dead("x", null))).isEqualTo(StoreStatus.NOT_FOUND);
        assertThatThrownBy(() -> store.extend(missing, 5_000)).isInstanceOfSatisfying(StoreException.class,
                e -> assertThat(e.status()).isEqualTo(StoreStatus.NOT_FOUND));

        assertThat(store.ack(List.of(LeaseRef.of(lease), LeaseRef.of(lease))))
                .containsExactly(StoreStatus.OK, StoreStatus.STALE_LEASE);
    }

    @Test
    void theTokenOfOneJobNeverWorksForAnother() {
        store.enqueue(List.of(NewJob.delayed(topic, "mine", PAYLOAD, 0, 3),
                NewJob.delayed(topic, "theirs", PAYLOAD, 0, 3)));
        List<Lease> both = new ArrayList<>();
        awaitTrue(() -> both.addAll(store.reserve(topic, Delivery.PULL, 2, 60_000).leases()) && both.size() == 2,
                2_000);
        Lease mine = both.get(0).job().id().equals("mine") ? both.get(0) : both.get(1);
        Lease theirs = both.get(0) == mine ? both.get(1) : both.get(0);

        LeaseRef borrowed = new LeaseRef(mine.ref(), theirs.token());
        assertThat(store.ack(List.of(borrowed))).containsExactly(StoreStatus.STALE_LEASE);
        assertThat(store.nack(borrowed, Failure.dead("x", null))).isEqualTo(StoreStatus.STALE_LEASE);
        assertStale(() -> store.extend(borrowed, 5_000));
        assertThat(find("mine").state()).isEqualTo(JobState.LEASED);
        assertThat(find("mine").history()).isEmpty();
        assertThat(store.nextLeaseDeadline(topic)).as("no deadline moved")
                .isEqualTo(Math.min(mine.deadline(), theirs.deadline()));

        assertThat(store.ack(List.of(LeaseRef.of(mine), LeaseRef.of(theirs))))
                .containsExactly(StoreStatus.OK, StoreStatus.OK);
    }

    /**
     * Issue 26, finding 8: every lease token is 128 bits from a CSPRNG, independent of every other, so that one token
     * (a callback's {@code Delayq-Lease-Token}, say) tells nothing about the tokens of the jobs leased beside it.
     * Randomness cannot be proven by a test; the structure of a scheme that is not random can be caught: here the
     * tokens of a 100-job reserve and of the next reserve are 22 characters of base64url (128 bits), and no two share
     * a base (32 leading bits in common: chance 2^-32 a pair), differ by a small number (below 2^64: chance 2^-63) or
     * in few bits (24 or fewer of 128: about 10^-12), and no bit is the same in all 150 (a version field, a zero-extended
     * 64-bit value: chance 2^-149 a bit). Once in about 400,000 runs a pair of random tokens fails the first check.
     */
    @Test
    void everyLeaseTokenIs128BitsUnrelatedToTheTokensOfItsBatchAndOfOtherBatches() {
        List<NewJob> jobs = new ArrayList<>();
        for (int i = 0; i < 150; i++) {
            jobs.add(NewJob.delayed(topic, "tk" + i, PAYLOAD, 0, 3));
        }
        store.enqueue(jobs);
        List<Lease> batch = new ArrayList<>();
        awaitTrue(() -> batch.addAll(store.reserve(topic, Delivery.PULL, 100, 60_000).leases()), 2_000);
        assertThat(batch).as("one reserve of 100 due jobs").hasSize(100);
        List<Lease> next = store.reserve(topic, Delivery.PULL, 100, 60_000).leases();
        assertThat(next).as("the next reserve").hasSize(50);

        List<BigInteger> tokens = new ArrayList<>();
        for (Lease lease : concat(batch, next)) {
            String text = lease.token().text();
            assertThat(text).as("a token is 128 bits as 22 characters of base64url").matches("[A-Za-z0-9_-]{22}");
            byte[] bits = Base64.getUrlDecoder().decode(text);
            assertThat(Base64.getUrlEncoder().withoutPadding().encodeToString(bits)).as("canonical")
                    .isEqualTo(text);
            tokens.add(new BigInteger(1, bits));
        }
        assertThat(Set.copyOf(tokens)).hasSize(150);
        BigInteger small = BigInteger.ONE.shiftLeft(64);
        for (int a = 0; a < tokens.size(); a++) {
            for (int b = a + 1; b < tokens.size(); b++) {
                BigInteger x = tokens.get(a);
                BigInteger y = tokens.get(b);
                BigInteger xor = x.xor(y);
                String pair = "tokens " + a + " and " + b + " (" + (a < 100 == b < 100 ? "one" : "two") + " reserves)";
                assertThat(128 - xor.bitLength()).as("leading bits in common, " + pair).isLessThan(32);
                assertThat(x.subtract(y).abs()).as("difference of " + pair).isGreaterThanOrEqualTo(small);
                assertThat(xor.bitCount()).as("bits that differ, " + pair).isGreaterThan(24);
            }
        }
        for (int bit = 0; bit < 128; bit++) {
            int at = bit;
            long ones = tokens.stream().filter(t -> t.testBit(at)).count();
            assertThat(ones).as("bit %d is 1 in some tokens and 0 in others", bit).isBetween(1L, 149L);
        }
    }

    private static <T> List<T> concat(List<T> a, List<T> b) {
        List<T> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    @Test
    void extendMovesTheDeadline() {
        store.enqueue(NewJob.delayed(topic, "ext", PAYLOAD, 0, 3));
        Lease lease = awaitLease(Delivery.PULL, 2_000, 150);
        long before = store.now();
        long deadline = store.extend(LeaseRef.of(lease), 5_000);
        assertThat(deadline).isGreaterThanOrEqualTo(before + 5_000);
        assertThat(store.nextLeaseDeadline(topic)).isEqualTo(deadline);
        sleep(300);
        assertThat(store.expireLeases(topic, 10)).isZero();
        assertThat(store.ack(List.of(LeaseRef.of(lease)))).containsExactly(StoreStatus.OK);
    }

    @Test
    void aLeaseLastsTheJobsOwnTimeout() {
        NewJob job = new NewJob(topic, "own", PAYLOAD, 0L, null, 3, null, null, 60_000L, false, Delivery.PULL);
        store.enqueue(job);
        sleep(5);
        ReserveResult r = store.reserve(topic, Delivery.PULL, 1, 1_000);
        assertThat(r.leases()).hasSize(1);
        assertThat(r.leases().get(0).deadline()).isGreaterThanOrEqualTo(r.now() + 60_000);
        ReserveResult d;
        store.enqueue(NewJob.delayed(topic, "default", PAYLOAD, 0, 3));
        sleep(5);
        d = store.reserve(topic, Delivery.PULL, 1, 1_000);
        assertThat(d.leases().get(0).deadline()).isEqualTo(d.now() + 1_000);
    }

    // ------------------------------------------------------------------ failures

    @Test
    void aNackedJobComesBackAfterItsRetryDelay() {
        store.enqueue(NewJob.delayed(topic, "retry", PAYLOAD, 0, 3));
        Lease lease = awaitLease(Delivery.PULL, 2_000);
        long before = store.now();
        assertThat(store.nack(LeaseRef.of(lease), Failure.retryAfter(300, "HTTP 503", 503))).isEqualTo(StoreStatus.OK);

        Job waiting = find("retry");
        assertThat(waiting.state()).isEqualTo(JobState.SCHEDULED);
        assertThat(waiting.runAt()).isGreaterThanOrEqualTo(before + 300);
        assertThat(waiting.lastError()).isEqualTo("HTTP 503");
        assertThat(waiting.history()).containsExactly(new Attempt(1, waiting.history().get(0).at(), "HTTP 503", 503));
        assertThat(store.ack(List.of(LeaseRef.of(lease)))).containsExactly(StoreStatus.STALE_LEASE);

        ReserveResult early = store.reserve(topic, Delivery.PULL, 10, 1_000);
        assertNothingBefore(early, waiting.runAt());
        Lease again = early.leases().isEmpty() ? awaitLease(Delivery.PULL, 3_000) : early.leases().get(0);
        assertThat(store.now()).isGreaterThanOrEqualTo(waiting.runAt());
        assertThat(again.attempt()).isEqualTo(2);
    }

    @Test
    void aDeadNackEndsInTheOutboxWithItsHistory() {
        store.enqueue(NewJob.delayed(topic, "dead", PAYLOAD, 0, 5));
        Lease lease = awaitLease(Delivery.PULL, 2_000);
        store.nack(LeaseRef.of(lease), Failure.retryAfter(0, "first", 500));
        Lease second = awaitLease(Delivery.PULL, 2_000);
        assertThat(store.nack(LeaseRef.of(second), Failure.dead("HTTP 410 Gone", 410))).isEqualTo(StoreStatus.OK);

        Job dead = find("dead");
        assertThat(dead.state()).isEqualTo(JobState.DEAD);
        assertThat(dead.finishedAt()).isNotNull();
        assertThat(dead.lastError()).isEqualTo("HTTP 410 Gone");
        assertThat(dead.history()).extracting(Attempt::number).containsExactly(1, 2);
        assertThat(store.stats(topic).dead()).isEqualTo(1);

        List<OutboxEntry> mine = outboxOf(topic);
        assertThat(mine).hasSize(1);
        Job archived = mine.get(0).job();
        assertThat(archived.id()).isEqualTo("dead");
        assertThat(archived.state()).isEqualTo(JobState.DEAD);
        assertThat(archived.payload()).isEqualTo(PAYLOAD);
        assertThat(archived.history()).extracting(Attempt::httpStatus).containsExactly(500, 410);

        long sizeBefore = store.outboxSize();
        assertThat(sizeBefore).isGreaterThanOrEqualTo(1);
        store.deleteOutbox(mine);
        assertThat(outboxOf(topic)).isEmpty();
    }

    @Test
    void aRetryOnTheLastAttemptIsDeadAnyway() {
        store.enqueue(NewJob.delayed(topic, "last", PAYLOAD, 0, 1));
        Lease lease = awaitLease(Delivery.PULL, 2_000);
        assertThat(store.nack(LeaseRef.of(lease), Failure.retryAfter(0, "boom", null))).isEqualTo(StoreStatus.OK);
        assertThat(find("last").state()).isEqualTo(JobState.DEAD);
        assertThat(outboxOf(topic)).hasSize(1);
    }

    @Test
    void expiringTheLastAttemptMakesTheJobDead() {
        // A consumer that always crashes: every lease expires. The job still ends, after its attempts and the
        // unknown-outcome retries of its last attempt (JobStore.EXPIRED_LAST_ATTEMPT_RETRIES), never numbered past 2.
        store.enqueue(NewJob.delayed(topic, "crashy", PAYLOAD, 0, 2));
        List<Integer> attempts = new ArrayList<>();
        for (int lease = 1; lease <= 2 + JobStore.EXPIRED_LAST_ATTEMPT_RETRIES; lease++) {
            Lease l = awaitLease(Delivery.PULL, 2_000, 50);
            attempts.add(l.attempt());
            awaitTrue(() -> store.now() > l.deadline(), 2_000);
            boolean last = lease == 2 + JobStore.EXPIRED_LAST_ATTEMPT_RETRIES;
            assertThat(store.reclaimLeases(topic, 10)).as("lease " + lease + ": taken back, dead on the last one only")
                    .isEqualTo(new ReclaimedLeases(1, 0, last ? 1 : 0));
        }
        assertThat(attempts).startsWith(1, 2).allSatisfy(a -> assertThat(a).isLessThanOrEqualTo(2));
        Job dead = find("crashy");
        assertThat(dead.state()).isEqualTo(JobState.DEAD);
        assertThat(dead.lastError()).as("says that the outcome is unknown").contains("outcome unknown");
        assertThat(dead.history()).hasSize(2 + JobStore.EXPIRED_LAST_ATTEMPT_RETRIES);
        assertThat(store.reserve(topic, Delivery.PULL, 10, 1_000).leases()).isEmpty();
        assertThat(outboxOf(topic)).extracting(e -> e.job().id()).containsExactly("crashy");
        assertThat(store.stats(topic).dead()).isEqualTo(1);
    }

    @Test
    void anExpiredLastAttemptIsLeasedOnceMoreUnderTheSameNumber() {
        // maxAttempts 1 and a lease that expires (a lost reserve reply, a killed instance, acks lost in an outage):
        // the outcome is unknown, so the job is not a dead letter yet.
        store.enqueue(NewJob.delayed(topic, "unknown", PAYLOAD, 0, 1));
        Lease first = awaitLease(Delivery.PULL, 2_000, 50);
        assertThat(first.attempt()).isEqualTo(1);
        awaitTrue(() -> store.now() > first.deadline(), 2_000);
        assertThat(store.expireLeases(topic, 10)).isEqualTo(1);

        Job back = find("unknown");
        assertThat(back.state()).as("not dead on an unknown outcome").isEqualTo(JobState.SCHEDULED);
        assertThat(back.attempts()).as("the last attempt is not used up").isZero();
        assertThat(back.history()).hasSize(1);
        assertThat(back.history().get(0).number()).isEqualTo(1);
        assertThat(back.history().get(0).error()).contains("lease expired");
        assertThat(outboxOf(topic)).isEmpty();

        Lease second = awaitLease(Delivery.PULL, 2_000);
        assertThat(second.attempt()).as("never numbered past maxAttempts").isEqualTo(1);
        assertThat(store.ack(List.of(LeaseRef.of(first)))).as("the expired lease stays stale")
                .containsExactly(StoreStatus.STALE_LEASE);
        assertThat(store.ack(List.of(LeaseRef.of(second)))).containsExactly(StoreStatus.OK);
        Job done = find("unknown");
        assertThat(done.state()).isEqualTo(JobState.SUCCEEDED);
        assertThat(done.attempts()).isEqualTo(1);
        assertThat(done.history()).extracting(Attempt::number).containsExactly(1, 1);
    }

    @Test
    void aNackAfterAnExpiredLastAttemptStillKillsTheJob() {
        store.enqueue(NewJob.delayed(topic, "then-fails", PAYLOAD, 0, 1));
        Lease first = awaitLease(Delivery.PULL, 2_000, 50);
        awaitTrue(() -> store.now() > first.deadline(), 2_000);
        assertThat(store.expireLeases(topic, 10)).isEqualTo(1);
        Lease second = awaitLease(Delivery.PULL, 2_000);
        assertThat(store.nack(LeaseRef.of(second), Failure.retryAfter(0, "HTTP 500", 500))).isEqualTo(StoreStatus.OK);
        Job dead = find("then-fails");
        assertThat(dead.state()).isEqualTo(JobState.DEAD);
        assertThat(dead.lastError()).isEqualTo("HTTP 500");
        assertThat(outboxOf(topic)).extracting(e -> e.job().id()).containsExactly("then-fails");
    }

    @Test
    void anUnreadableJobCostsNoOtherLeaseOfItsBatch() {
        store.enqueue(List.of(
                NewJob.delayed(topic, "u1", PAYLOAD, 0, 3),
                NewJob.delayed(topic, "u2", PAYLOAD, 0, 3),
                NewJob.delayed(topic, "u3", PAYLOAD, 0, 3)));
        makeUnreadable(store, new JobRef(topic, "u2"));
        sleep(5);

        ReserveResult r = store.reserve(topic, Delivery.PULL, 10, 60_000);
        assertThat(r.leases()).extracting(l -> l.job().id()).containsExactlyInAnyOrder("u1", "u3");
        assertThat(r.leases()).allSatisfy(l -> assertThat(l.attempt()).isEqualTo(1));
        assertThat(store.reserve(topic, Delivery.PULL, 10, 60_000).leases()).as("the unreadable job is not leased again")
                .isEmpty();
        TopicStats stats = store.stats(topic);
        assertThat(stats.leased()).isEqualTo(2);
        assertThat(stats.dead()).as("the unreadable job ended").isEqualTo(1);
        assertThat(store.ack(r.leases().stream().map(LeaseRef::of).toList())).containsOnly(StoreStatus.OK);
        List<OutboxEntry> dead = outboxOf(topic);
        assertThat(dead).singleElement().satisfies(e -> assertThat(e.ref().id()).isEqualTo("u2"));
        store.quarantineOutbox(dead); // other tests on this backend read the outbox too
    }

    @Test
    void anUnreadableOutboxEntryIsHandedOutMarkedAndCanBeQuarantined() {
        store.enqueue(List.of(NewJob.delayed(topic, "fine", PAYLOAD, 0, 1), NewJob.delayed(topic, "spoilt", PAYLOAD, 0, 1)));
        makeUnreadable(store, new JobRef(topic, "spoilt"));
        sleep(5);
        List<Lease> leases = store.reserve(topic, Delivery.PULL, 10, 60_000).leases();
        assertThat(leases).extracting(l -> l.job().id()).containsExactly("fine");
        assertThat(store.nack(LeaseRef.of(leases.get(0)), Failure.dead("HTTP 410", 410))).isEqualTo(StoreStatus.OK);

        List<OutboxEntry> mine = outboxOf(topic);
        assertThat(mine).extracting(e -> e.ref().id()).containsExactlyInAnyOrder("fine", "spoilt");
        OutboxEntry readable = mine.stream().filter(e -> e.ref().id().equals("fine")).findFirst().orElseThrow();
        assertThat(readable.isReadable()).isTrue();
        assertThat(readable.job().state()).isEqualTo(JobState.DEAD);
        OutboxEntry unreadable = mine.stream().filter(e -> e.ref().id().equals("spoilt")).findFirst().orElseThrow();
        assertThat(unreadable.isReadable()).isFalse();
        assertThat(unreadable.job()).isNull();
        assertThat(unreadable.unreadable().ref()).isEqualTo(new JobRef(topic, "spoilt"));
        assertThat(unreadable.unreadable().raw()).as("kept for an operator").contains("close if unpaid");
        assertThat(unreadable.unreadable().reason()).isNotBlank();

        long quarantinedBefore = store.quarantineSize();
        store.quarantineOutbox(List.of(unreadable));
        assertThat(outboxOf(topic)).extracting(e -> e.ref().id()).containsExactly("fine");
        assertThat(store.quarantineSize()).isEqualTo(quarantinedBefore + 1);
        store.deleteOutbox(List.of(readable));
        assertThat(outboxOf(topic)).isEmpty();
    }

    @Test
    void succeededJobsReachTheOutboxOnlyWhenTheTopicAsks() {
        store.enqueue(NewJob.delayed(topic, "quiet", PAYLOAD, 0, 3));
        store.ack(List.of(LeaseRef.of(awaitLease(Delivery.PULL, 2_000))));
        assertThat(outboxOf(topic)).isEmpty();

        store.putSettings(topic, new TopicSettings(null, null, null, null, null, true));
        store.enqueue(NewJob.delayed(topic, "kept", PAYLOAD, 0, 3));
        store.ack(List.of(LeaseRef.of(awaitLease(Delivery.PULL, 2_000))));
        List<OutboxEntry> mine = outboxOf(topic);
        assertThat(mine).extracting(e -> e.job().id()).containsExactly("kept");
        assertThat(mine.get(0).job().state()).isEqualTo(JobState.SUCCEEDED);
        store.deleteOutbox(mine);
    }

    // ------------------------------------------------------------------ producer changes

    @Test
    void aScheduledJobCanBeCancelledOnce() {
        store.enqueue(NewJob.delayed(topic, "c1", PAYLOAD, 100, 3));
        Job cancelled = store.cancel(new JobRef(topic, "c1"));
        assertThat(cancelled.state()).isEqualTo(JobState.CANCELLED);
        assertThat(find("c1").state()).isEqualTo(JobState.CANCELLED);
        sleep(200);
        assertThat(store.reserve(topic, Delivery.PULL, 10, 1_000).leases()).isEmpty();
        assertThat(store.stats(topic).scheduled()).isZero();
        assertStatus(() -> store.cancel(new JobRef(topic, "c1")), StoreStatus.NOT_IN_STATE);
        assertStatus(() -> store.cancel(new JobRef(topic, "missing")), StoreStatus.NOT_FOUND);
    }

    @Test
    void cancellingALeasedJobMakesItsTokenStale() {
        store.enqueue(NewJob.delayed(topic, "c2", PAYLOAD, 0, 3));
        Lease lease = awaitLease(Delivery.PULL, 2_000);
        assertThat(store.cancel(lease.ref()).state()).isEqualTo(JobState.CANCELLED);
        assertThat(store.ack(List.of(LeaseRef.of(lease)))).containsExactly(StoreStatus.STALE_LEASE);
        assertThat(store.nack(LeaseRef.of(lease), Failure.retryAfter(0, "x", null))).isEqualTo(StoreStatus.STALE_LEASE);
        assertThat(store.nextLeaseDeadline(topic)).isEqualTo(-1);
        assertThat(find("c2").state()).isEqualTo(JobState.CANCELLED);
    }

    @Test
    void aScheduledJobCanBeRescheduled() {
        store.enqueue(NewJob.delayed(topic, "r1", PAYLOAD, 600_000, 3));
        long before = store.now();
        Job moved = store.reschedule(new JobRef(topic, "r1"), 0L, null);
        assertThat(moved.state()).isEqualTo(JobState.SCHEDULED);
        assertThat(moved.runAt()).isBetween(before, before + 5_000);
        assertThat(awaitLease(Delivery.PULL, 2_000).job().id()).isEqualTo("r1");

        store.enqueue(NewJob.delayed(topic, "r2", PAYLOAD, 0, 3));
        long later = store.now() + 600_000;
        Job pushedBack = store.reschedule(new JobRef(topic, "r2"), null, later);
        assertThat(pushedBack.runAt()).isEqualTo(later);
        sleep(20);
        assertThat(store.reserve(topic, Delivery.PULL, 10, 1_000).leases()).isEmpty();
        assertThat(store.nextDueAt(topic, Delivery.PULL)).isEqualTo(later);
    }

    @Test
    void reschedulingALeasedJobMakesItsTokenStale() {
        store.enqueue(NewJob.delayed(topic, "r3", PAYLOAD, 0, 3));
        Lease lease = awaitLease(Delivery.PULL, 2_000);
        Job moved = store.reschedule(lease.ref(), 100L, null);
        assertThat(moved.state()).isEqualTo(JobState.SCHEDULED);
        assertThat(store.ack(List.of(LeaseRef.of(lease)))).containsExactly(StoreStatus.STALE_LEASE);
        assertStale(() -> store.extend(LeaseRef.of(lease), 1_000));
        Lease again = awaitLease(Delivery.PULL, 2_000);
        assertThat(again.token()).isNotEqualTo(lease.token());
        store.ack(List.of(LeaseRef.of(again)));
        assertStatus(() -> store.reschedule(lease.ref(), 0L, null), StoreStatus.NOT_IN_STATE);
        assertStatus(() -> store.reschedule(new JobRef(topic, "missing"), 0L, null), StoreStatus.NOT_FOUND);
    }

    @Test
    void reschedulingALeasedJobGivesItsAttemptBackAndSaysSoInItsHistory() {
        store.enqueue(NewJob.delayed(topic, "r4", PAYLOAD, 0, 1));
        Lease lease = awaitLease(Delivery.PULL, 2_000);
        assertThat(lease.attempt()).isEqualTo(1);
        Job moved = store.reschedule(lease.ref(), 0L, null);
        assertThat(moved.attempts()).as("the interrupted attempt does not count").isZero();
        assertThat(moved.history()).hasSize(1);
        assertThat(moved.history().get(0).number()).isEqualTo(1);
        assertThat(moved.history().get(0).error()).contains("rescheduled");
        assertThat(find("r4").history()).isEqualTo(moved.history());

        Lease again = awaitLease(Delivery.PULL, 2_000);
        assertThat(again.attempt()).as("never numbered past maxAttempts").isEqualTo(1);
        assertThat(store.ack(List.of(LeaseRef.of(again)))).containsExactly(StoreStatus.OK);
        Job done = find("r4");
        assertThat(done.attempts()).isEqualTo(1);
        assertThat(done.history()).extracting(Attempt::number).containsExactly(1, 1);

        store.enqueue(NewJob.delayed(topic, "r5", PAYLOAD, 600_000, 3));
        Job waiting = store.reschedule(new JobRef(topic, "r5"), 600_000L, null);
        assertThat(waiting.history()).as("a job that was not leased has no attempt to withdraw").isEmpty();
        assertThat(waiting.attempts()).isZero();
    }

    // ------------------------------------------------------------------ retention and outages

    @Test
    void finishedJobsAreForgottenAfterTheRetentionAndTheirIdsFreed() {
        try (JobStore short_ = newStoreWithRetention(300)) {
            short_.enqueue(List.of(NewJob.delayed(topic, "done", PAYLOAD, 0, 3),
                    NewJob.delayed(topic, "waiting", PAYLOAD, 600_000, 3)));
            Lease lease = awaitLease(Delivery.PULL, 2_000);
            assertThat(short_.ack(List.of(LeaseRef.of(lease)))).containsExactly(StoreStatus.OK);
            long finishedAt = find("done").finishedAt();
            // Stores trim in the background or as part of later operations on the topic: keep the topic busy.
            awaitTrue(() -> {
                short_.reserve(topic, Delivery.PULL, 1, 1_000);
                return short_.find(new JobRef(topic, "done")).isEmpty();
            }, 10_000);
            assertThat(short_.now()).as("not forgotten before the retention").isGreaterThanOrEqualTo(finishedAt + 300);
            assertThat(short_.find(new JobRef(topic, "waiting"))).as("unfinished jobs are kept").isPresent();
            EnqueueResult again = short_.enqueue(NewJob.delayed(topic, "done", "{\"second\":\"life\"}", 600_000, 3));
            assertThat(again.created()).as("the id is free again").isTrue();
            assertThat(short_.stats(topic).succeeded()).as("counters outlive the records").isEqualTo(1);
        }
    }

    @Test
    void anUnreachableBackendAnswersUnavailable() {
        JobStore down;
        try {
            down = newUnreachableStore();
        } catch (StoreException e) {
            assertThat(e.status()).isEqualTo(StoreStatus.UNAVAILABLE);
            assertThat(e.getMessage()).as("says what to check").isNotBlank();
            return;
        }
        try (JobStore s = down) {
            List<Runnable> calls = List.of(
                    () -> s.enqueue(NewJob.delayed(topic, "x", PAYLOAD, 0, 3)),
                    () -> s.find(new JobRef(topic, "x")),
                    () -> s.reserve(topic, Delivery.PULL, 1, 1_000),
                    () -> s.ack(List.of(new LeaseRef(new JobRef(topic, "x"), LeaseToken.random()))),
                    () -> s.stats(topic),
                    () -> s.readOutbox(10),
                    s::now);
            for (Runnable call : calls) {
                assertStatus(call, StoreStatus.UNAVAILABLE);
            }
        }
    }

    // ------------------------------------------------------------------ topics, stats, settings

    @Test
    void statsCountEveryState() {
        store.enqueue(List.of(
                NewJob.delayed(topic, "a", PAYLOAD, 0, 3),
                NewJob.delayed(topic, "b", PAYLOAD, 0, 1),
                NewJob.delayed(topic, "c", PAYLOAD, 0, 3),
                NewJob.delayed(topic, "d", PAYLOAD, 600_000, 3)));
        sleep(5);
        ReserveResult r = store.reserve(topic, Delivery.PULL, 3, 60_000);
        assertThat(r.leases()).hasSize(3);
        Map<String, Lease> byId = new java.util.HashMap<>();
        r.leases().forEach(l -> byId.put(l.job().id(), l));
        store.ack(List.of(LeaseRef.of(byId.get("a"))));
        store.nack(LeaseRef.of(byId.get("b")), Failure.dead("no", null));

        TopicStats stats = store.stats(topic);
        assertThat(stats.topic()).isEqualTo(topic);
        assertThat(stats.scheduled()).isEqualTo(1);
        assertThat(stats.leased()).isEqualTo(1);
        assertThat(stats.succeeded()).isEqualTo(1);
        assertThat(stats.dead()).isEqualTo(1);
        assertThat(stats.nextRunAt()).isEqualTo(find("d").runAt());
        assertThat(store.topics()).contains(topic);
        store.deleteOutbox(outboxOf(topic));
    }

    @Test
    void anUnknownTopicHasEmptyStatsAndSettings() {
        String other = "t-" + UUID.randomUUID();
        assertThat(store.stats(other)).isEqualTo(new TopicStats(other, 0, 0, 0, 0, -1));
        assertThat(store.settings(other)).isEqualTo(TopicSettings.empty());
        assertThat(store.find(new JobRef(other, "x"))).isEmpty();
        assertThat(store.reserve(other, Delivery.PUSH, 5, 1_000).leases()).isEmpty();
        assertThat(store.expireLeases(other, 5)).isZero();
    }

    @Test
    void timesOfManyTopicsAreWhatEachTopicsNextDueAndLeaseDeadlineAre() {
        String pushing = topic + "-push";
        String pulled = topic + "-pull";
        String unknown = "t-" + UUID.randomUUID();
        store.enqueue(List.of(NewJob.delayed(topic, "a", PAYLOAD, 0, 3), NewJob.delayed(topic, "b", PAYLOAD, 0, 3),
                NewJob.delayed(topic, "c", PAYLOAD, 600_000, 3)));
        store.enqueue(List.of(NewJob.delayed(pushing, "p", PAYLOAD, 120_000, 3).withDelivery(Delivery.PUSH)));
        store.enqueue(List.of(NewJob.delayed(pulled, "q", PAYLOAD, 0, 3)));
        sleep(5);
        assertThat(store.reserve(topic, Delivery.PULL, 1, 60_000).leases()).hasSize(1);

        List<String> asked = List.of(unknown, topic, pushing, pulled, topic);
        Map<String, TopicTimes> all = store.times(asked);
        assertThat(all.keySet()).as("each topic once, in the order asked")
                .containsExactly(unknown, topic, pushing, pulled);
        for (String t : List.of(unknown, topic, pushing, pulled)) {
            assertThat(all.get(t)).as(t).isEqualTo(new TopicTimes(t, store.nextDueAt(t, Delivery.PUSH),
                    store.nextDueAt(t, Delivery.PULL), store.nextLeaseDeadline(t)));
        }
        assertThat(all.get(unknown)).isEqualTo(TopicTimes.none(unknown));
        assertThat(all.get(topic).leaseDeadline()).as("the lease taken").isPositive();
        assertThat(all.get(topic).pullDueAt()).as("b is still due").isPositive();
        assertThat(all.get(pushing).dueAt(Delivery.PUSH)).isPositive();
        assertThat(all.get(pushing).dueAt(Delivery.PULL)).isEqualTo(-1);
        assertThat(store.times(List.of())).isEmpty();
    }

    @Test
    void statsOfManyTopicsAreWhatEachTopicsStatsAre() {
        String busy = topic + "-busy";
        String quiet = topic + "-quiet";
        String unknown = "t-" + UUID.randomUUID();
        store.enqueue(List.of(NewJob.delayed(topic, "a", PAYLOAD, 0, 3), NewJob.delayed(topic, "b", PAYLOAD, 0, 1),
                NewJob.delayed(topic, "c", PAYLOAD, 600_000, 3)));
        List<NewJob> many = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            many.add(NewJob.delayed(busy, "j" + i, PAYLOAD, i * 60_000L, 3));
        }
        store.enqueue(many);
        store.enqueue(NewJob.delayed(quiet, "q", PAYLOAD, 0, 3));
        sleep(5);
        List<Lease> leases = store.reserve(topic, Delivery.PULL, 2, 60_000).leases();
        assertThat(leases).hasSize(2);
        store.ack(List.of(LeaseRef.of(leases.get(0))));
        store.reserve(busy, Delivery.PULL, 1, 60_000);

        List<String> asked = List.of(unknown, topic, busy, quiet, topic);
        Map<String, TopicStats> all = store.stats(asked);
        assertThat(all.keySet()).as("each topic once, in the order asked").containsExactly(unknown, topic, busy, quiet);
        for (String t : List.of(unknown, topic, busy, quiet)) {
            assertThat(all.get(t)).as(t).isEqualTo(store.stats(t));
        }
        assertThat(all.get(unknown)).isEqualTo(new TopicStats(unknown, 0, 0, 0, 0, -1));
        assertThat(all.get(topic).succeeded()).isEqualTo(1);
        assertThat(all.get(busy).scheduled()).isEqualTo(11);
        assertThat(store.stats(List.of())).isEmpty();
    }

    @Test
    void settingsAreStoredPerTopic() {
        TopicSettings settings = new TopicSettings(Callback.of("http://localhost:1/cb"), 4,
                new Backoff.Exponential(io.dropwizard.util.Duration.seconds(2), 3.0, io.dropwizard.util.Duration.minutes(5), 0.1),
                2_500L, true, false);
        store.putSettings(topic, settings);
        assertThat(store.settings(topic)).isEqualTo(settings);
        assertThat(store.topics()).contains(topic);
        try (JobStore other = newStore()) {
            assertThat(other.settings(topic)).isEqualTo(settings);
        }
    }

    @Test
    void concurrentSettingsUpdatesOfDifferentFieldsBothSurvive() throws Exception {
        store.putSettings(topic, new TopicSettings(null, 3, null, null, false, null));
        CountDownLatch pausingRead = new CountDownLatch(1);
        CountDownLatch otherWrote = new CountDownLatch(1);
        AtomicInteger pausingCalls = new AtomicInteger();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try (JobStore other = newStore()) {
            // Instance A reads the settings to pause the topic; instance B changes maxAttempts before A writes.
            Future<TopicSettings> pausing = pool.submit(() -> store.updateSettings(topic, current -> {
                if (pausingCalls.incrementAndGet() == 1) {
                    pausingRead.countDown();
                    awaitLatch(otherWrote);
                }
                return new TopicSettings(current.callback(), current.maxAttempts(), current.backoff(),
                        current.timeoutMs(), true, current.archiveSucceeded());
            }));
            awaitLatch(pausingRead);
            TopicSettings written = other.updateSettings(topic, current -> new TopicSettings(current.callback(), 7,
                    current.backoff(), current.timeoutMs(), current.paused(), current.archiveSucceeded()));
            assertThat(written.maxAttempts()).isEqualTo(7);
            otherWrote.countDown();
            TopicSettings result = pausing.get(10, TimeUnit.SECONDS);

            TopicSettings stored = store.settings(topic);
            assertThat(stored.isPaused()).as("the pause survives").isTrue();
            assertThat(stored.maxAttempts()).as("the other update survives").isEqualTo(7);
            assertThat(result).isEqualTo(stored);
            assertThat(other.settings(topic)).isEqualTo(stored);
            assertThat(pausingCalls.get()).as("applied again to the newer settings").isEqualTo(2);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aSettingsUpdateStartsFromNothingAndARefusedOneStoresNothing() {
        TopicSettings first = store.updateSettings(topic, current -> {
            assertThat(current).isEqualTo(TopicSettings.empty());
            return new TopicSettings(null, 5, null, null, null, null);
        });
        assertThat(first.maxAttempts()).isEqualTo(5);
        assertThat(store.settings(topic)).isEqualTo(first);
        assertThat(store.topics()).contains(topic);

        assertThatThrownBy(() -> store.updateSettings(topic, current -> {
            throw new IllegalArgumentException("maxAttempts must be at most 100");
        })).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at most 100");
        assertThat(store.settings(topic)).isEqualTo(first);
    }

    // ------------------------------------------------------------------ notifications

    @Test
    void subscribersHearWhenATopicsEarliestRunTimeMovesEarlier() throws Exception {
        List<Long> wakes = new CopyOnWriteArrayList<>();
        try (JobStore other = newStore();
             AutoCloseable ignored = other.subscribe(new StoreListener() {
                 @Override
                 public void onWake(String t, long dueAt) {
                     if (t.equals(topic)) {
                         wakes.add(dueAt);
                     }
                 }
             })) {
            long first = store.enqueue(NewJob.delayed(topic, "w1", PAYLOAD, 20_000, 3)).job().runAt();
            awaitTrue(() -> wakes.size() == 1, 5_000);
            store.enqueue(NewJob.delayed(topic, "w2", PAYLOAD, 40_000, 3));
            long earlier = store.enqueue(NewJob.delayed(topic, "w3", PAYLOAD, 5_000, 3)).job().runAt();
            awaitTrue(() -> wakes.size() >= 2, 5_000);
            sleep(50);
            assertThat(wakes).containsExactly(first, earlier);
        }
    }

    @Test
    void broadcastsReachEverySubscriber() throws Exception {
        List<Job> heardA = new CopyOnWriteArrayList<>();
        List<Job> heardB = new CopyOnWriteArrayList<>();
        StoreListener a = listener(topic, heardA);
        StoreListener b = listener(topic, heardB);
        try (JobStore other = newStore(); AutoCloseable sa = store.subscribe(a); AutoCloseable sb = other.subscribe(b)) {
            Job job = store.enqueue(new NewJob(topic, "bc", PAYLOAD, 0L, null, 1, null, null, null, true, Delivery.PUSH)).job();
            store.publishBroadcast(job);
            awaitTrue(() -> heardA.size() == 1 && heardB.size() == 1, 5_000);
            assertThat(heardA.get(0)).isEqualTo(job);
            assertThat(heardB.get(0)).isEqualTo(job);
        }
    }

    @Test
    void aListenerThatThrowsSilencesNoOtherListenerAndNoLaterMessage() throws Exception {
        List<Long> wakes = new CopyOnWriteArrayList<>();
        List<Job> heard = new CopyOnWriteArrayList<>();
        StoreListener throwing = new StoreListener() {
            @Override
            public void onWake(String t, long dueAt) {
                throw new IllegalStateException("a listener's own bug");
            }

            @Override
            public void onBroadcast(Job job) {
                throw new IllegalStateException("a listener's own bug");
            }
        };
        StoreListener recording = new StoreListener() {
            @Override
            public void onWake(String t, long dueAt) {
                if (t.equals(topic)) {
                    wakes.add(dueAt);
                }
            }

            @Override
            public void onBroadcast(Job job) {
                if (job.topic().equals(topic)) {
                    heard.add(job);
                }
            }
        };
        try (JobStore other = newStore(); AutoCloseable a = other.subscribe(throwing);
             AutoCloseable b = other.subscribe(recording)) {
            long first = store.enqueue(NewJob.delayed(topic, "l1", PAYLOAD, 20_000, 3)).job().runAt();
            awaitTrue(() -> wakes.contains(first), 5_000);
            Job job = store.enqueue(NewJob.delayed(topic, "l2", PAYLOAD, 0, 1)).job();
            store.publishBroadcast(job);
            awaitTrue(() -> heard.size() == 1, 5_000);
            // after the broadcast, a new earliest run time still wakes the listener that did not throw
            long last = store.enqueue(NewJob.at(topic, "l3", PAYLOAD, job.runAt() - 1_000, 3)).job().runAt();
            awaitTrue(() -> wakes.contains(last), 5_000);
        }
    }

    @Test
    void aClosedSubscriptionHearsNothingMore() throws Exception {
        List<Job> heard = new CopyOnWriteArrayList<>();
        List<Job> control = new CopyOnWriteArrayList<>();
        AutoCloseable subscription = store.subscribe(listener(topic, heard));
        try (AutoCloseable c = store.subscribe(listener(topic, control))) {
            subscription.close();
            Job job = store.enqueue(NewJob.delayed(topic, "gone", PAYLOAD, 0, 1)).job();
            store.publishBroadcast(job);
            awaitTrue(() -> control.size() == 1, 5_000);
            assertThat(heard).isEmpty();
        }
    }

    // ------------------------------------------------------------------ load

    @Test
    void concurrentReserversNeverShareAJobAndLoseNothing() throws Exception {
        int jobs = 2_000;
        List<NewJob> batch = new ArrayList<>();
        for (int i = 0; i < jobs; i++) {
            batch.add(NewJob.delayed(topic, "c" + i, PAYLOAD, 0, 3));
        }
        store.enqueue(batch);
        Set<String> seen = ConcurrentHashMap.newKeySet();
        AtomicInteger duplicates = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> workers = new ArrayList<>();
        for (int w = 0; w < 8; w++) {
            workers.add(pool.submit(() -> {
                start.await();
                int empty = 0;
                while (empty < 3) {
                    ReserveResult r = store.reserve(topic, Delivery.PULL, 25, 60_000);
                    if (r.leases().isEmpty()) {
                        empty++;
                        Thread.sleep(10);
                        continue;
                    }
                    empty = 0;
                    List<LeaseRef> refs = new ArrayList<>();
                    for (Lease l : r.leases()) {
                        if (!seen.add(l.job().id())) {
                            duplicates.incrementAndGet();
                        }
                        refs.add(LeaseRef.of(l));
                    }
                    assertThat(store.ack(refs)).containsOnly(StoreStatus.OK);
                }
                return null;
            }));
        }
        start.countDown();
        for (Future<?> f : workers) {
            f.get(60, TimeUnit.SECONDS);
        }
        pool.shutdown();
        assertThat(duplicates.get()).isZero();
        assertThat(seen).hasSize(jobs);
        TopicStats stats = store.stats(topic);
        assertThat(stats.succeeded()).isEqualTo(jobs);
        assertThat(stats.scheduled()).isZero();
        assertThat(stats.leased()).isZero();
    }

    @Test
    void concurrentSingleEnqueuesAreEachAnsweredForThemselves() throws Exception {
        int threads = 8;
        int perThread = 150;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        AtomicInteger sharedCreated = new AtomicInteger();
        List<Future<?>> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int thread = t;
            workers.add(pool.submit(() -> {
                start.await();
                for (int i = 0; i < perThread; i++) {
                    String id = "s" + thread + "-" + i;
                    EnqueueResult r = store.enqueue(NewJob.delayed(topic, id, "{\"n\":" + i + "}", 60_000, 3));
                    assertThat(r.created()).isTrue();
                    assertThat(r.job().id()).isEqualTo(id);
                    assertThat(r.job().payload()).isEqualTo("{\"n\":" + i + "}");
                    EnqueueResult shared = store.enqueue(NewJob.delayed(topic, "shared", PAYLOAD, 60_000, 3));
                    assertThat(shared.status()).isEqualTo(StoreStatus.OK);
                    if (shared.created()) {
                        sharedCreated.incrementAndGet();
                    }
                    EnqueueResult clash = store.enqueue(NewJob.delayed(topic, "shared", "{\"t\":" + thread + "}", 60_000, 3));
                    assertThat(clash.status()).isEqualTo(StoreStatus.CONFLICT);
                }
                return null;
            }));
        }
        start.countDown();
        for (Future<?> f : workers) {
            f.get(60, TimeUnit.SECONDS);
        }
        pool.shutdown();
        assertThat(sharedCreated.get()).isEqualTo(1);
        assertThat(store.stats(topic).scheduled()).isEqualTo(threads * perThread + 1);
    }

    @Test
    void aLargeBatchIsScheduledWhole() {
        int n = 5_000;
        List<NewJob> batch = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            batch.add(NewJob.delayed(topic, "big-" + i, PAYLOAD, 0, 3));
        }
        List<EnqueueResult> results = store.enqueue(batch);
        assertThat(results).hasSize(n);
        for (int i = 0; i < n; i++) {
            assertThat(results.get(i).job().id()).isEqualTo("big-" + i);
            assertThat(results.get(i).created()).isTrue();
        }
        assertThat(store.stats(topic).scheduled()).isEqualTo(n);
        sleep(5);
        int leased = 0;
        while (true) {
            ReserveResult r = store.reserve(topic, Delivery.PULL, 1_000, 60_000);
            if (r.leases().isEmpty()) {
                break;
            }
            leased += r.leases().size();
            store.ack(r.leases().stream().map(LeaseRef::of).toList());
        }
        assertThat(leased).isEqualTo(n);
        assertThat(store.stats(topic).succeeded()).isEqualTo(n);
    }

    // ------------------------------------------------------------------ operator views

    @Test
    void theDueForecastCountsScheduledJobsOfBothLanesPerWindow() {
        long now = store.now();
        long from = now - 30_000;
        // leased and finished first, while nothing else is due, so that the reserve takes exactly these two
        store.enqueue(List.of(NewJob.at(topic, "leased", PAYLOAD, from + 1_000, 3),
                NewJob.at(topic, "acked", PAYLOAD, from + 2_000, 3)));
        List<Lease> leases = store.reserve(topic, Delivery.PULL, 2, 60_000).leases();
        assertThat(leases).hasSize(2);
        store.ack(leases.stream().filter(l -> l.job().id().equals("acked")).map(LeaseRef::of).toList());
        store.enqueue(List.of(
                NewJob.at(topic, "push-0", PAYLOAD, from + 3_000, 3).withDelivery(Delivery.PUSH),
                NewJob.at(topic, "pull-0", PAYLOAD, from + 9_999, 3),
                NewJob.at(topic, "pull-1", PAYLOAD, from + 10_000, 3),
                NewJob.at(topic, "push-3", PAYLOAD, from + 35_000, 3).withDelivery(Delivery.PUSH),
                NewJob.at(topic, "cancelled-4", PAYLOAD, from + 45_000, 3),
                NewJob.at(topic, "push-5", PAYLOAD, from + 59_999, 3).withDelivery(Delivery.PUSH),
                NewJob.at(topic, "before", PAYLOAD, from - 1, 3),
                NewJob.at(topic, "after", PAYLOAD, from + 60_000, 3).withDelivery(Delivery.PUSH)));
        store.cancel(new JobRef(topic, "cancelled-4"));

        assertThat(store.dueForecast(topic, from, 10_000, 6)).containsExactly(2, 1, 0, 1, 0, 1);
        assertThat(store.dueForecast(topic, from + 10_000, 25_000, 2)).containsExactly(1, 2);
        assertThat(store.dueForecast("t-" + UUID.randomUUID(), from, 10_000, 3)).containsExactly(0, 0, 0);
    }

    @Test
    void theDueForecastRefusesWindowsItCannotServe() {
        long now = store.now();
        assertThatThrownBy(() -> store.dueForecast(topic, now, 60_000, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> store.dueForecast(topic, now, 60_000, 10_081))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> store.dueForecast(topic, now, 999, 10)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> store.dueForecast(topic, now, Long.MAX_VALUE / 2, 10))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> store.dueForecast("no/such topic", now, 60_000, 10))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(store.dueForecast(topic, now, 1_000, 10_080)).hasSize(10_080).containsOnly(0L);
    }

    @Test
    void leasesInFlightAreListedEarliestDeadlineFirstWithLaneAndAttempt() {
        store.enqueue(List.of(NewJob.delayed(topic, "a", PAYLOAD, 0, 3), NewJob.delayed(topic, "b", PAYLOAD, 0, 3),
                NewJob.delayed(topic, "acked", PAYLOAD, 0, 3),
                NewJob.delayed(topic, "p", PAYLOAD, 0, 3).withDelivery(Delivery.PUSH)));
        Map<String, Lease> held = new ConcurrentHashMap<>();
        awaitTrue(() -> {
            store.reserve(topic, Delivery.PULL, 3, 60_000).leases().forEach(l -> held.put(l.job().id(), l));
            store.reserve(topic, Delivery.PUSH, 1, 60_000).leases().forEach(l -> held.put(l.job().id(), l));
            return held.size() == 4;
        }, 2_000);
        store.ack(List.of(LeaseRef.of(held.get("acked"))));
        // b's first attempt fails, so that its lease in flight is its second attempt
        assertThat(store.nack(LeaseRef.of(held.get("b")), Failure.retryAfter(0, "boom", 500))).isEqualTo(StoreStatus.OK);
        held.put("b", awaitLease(Delivery.PULL, 2_000, 60_000));
        assertThat(held.get("b").job().id()).isEqualTo("b");
        long deadlineA = store.extend(LeaseRef.of(held.get("a")), 30_000);
        long deadlineB = store.extend(LeaseRef.of(held.get("b")), 10_000);
        long deadlineP = store.extend(LeaseRef.of(held.get("p")), 20_000);

        assertThat(store.leasesInFlight(topic, 10)).containsExactly(
                new LeaseInFlight("b", Delivery.PULL, 2, deadlineB),
                new LeaseInFlight("p", Delivery.PUSH, 1, deadlineP),
                new LeaseInFlight("a", Delivery.PULL, 1, deadlineA));
        assertThat(store.leasesInFlight(topic, 2)).extracting(LeaseInFlight::id).containsExactly("b", "p");

        store.ack(List.of(LeaseRef.of(held.get("b"))));
        store.cancel(new JobRef(topic, "p"));
        assertThat(store.leasesInFlight(topic, 10)).extracting(LeaseInFlight::id).containsExactly("a");
        assertThat(store.leasesInFlight("t-" + UUID.randomUUID(), 10)).isEmpty();
        assertThatThrownBy(() -> store.leasesInFlight(topic, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void historyIncrementsAddUpAcrossCallsAndInstances() {
        long m0 = minuteAgo(10);
        String other = "t-" + UUID.randomUUID();
        store.addHistory(List.of(historyMinute(topic, m0, 2, 1, 0, 0, 0, 1),
                historyMinute(other, m0, 100, 100, 100, 100, 0, 100)));
        try (JobStore second = newStore()) {
            second.addHistory(List.of(historyMinute(topic, m0, 3, 4, 1, 1, 0, 2),
                    historyMinute(topic, m0, 0, 1, 0, 0, LatenessBuckets.COUNT - 1, 1)));
        }
        store.addHistory(List.of(historyMinute(topic, m0, 1, 0, 0, 0, 5, 3)));

        long[] lateness = new long[LatenessBuckets.COUNT];
        lateness[0] = 3;
        lateness[5] = 3;
        lateness[LatenessBuckets.COUNT - 1] = 1;
        assertThat(store.history(topic, m0, m0 + TopicMinute.MINUTE_MS))
                .containsExactly(new TopicMinute(topic, m0, 6, 6, 1, 1, lateness));
        assertThat(store.history(other, m0, m0 + TopicMinute.MINUTE_MS))
                .containsExactly(historyMinute(other, m0, 100, 100, 100, 100, 0, 100));
    }

    @Test
    void historyCountsDeadLettersByCauseAndAddsThemUp() {
        long m0 = minuteAgo(12);
        long[] none = new long[LatenessBuckets.COUNT];
        store.addHistory(List.of(new TopicMinute(topic, m0, 0, 0, 2, 3, 2, 1, none)));
        try (JobStore second = newStore()) {
            second.addHistory(List.of(new TopicMinute(topic, m0, 0, 0, 0, 1, 1, 0, none)));
        }
        // a minute with only dead letters by cause still counts as a stored minute
        store.addHistory(List.of(new TopicMinute(topic, m0 + TopicMinute.MINUTE_MS, 0, 0, 0, 0, 0, 4, none)));

        assertThat(store.history(topic, m0, m0 + 2 * TopicMinute.MINUTE_MS)).containsExactly(
                new TopicMinute(topic, m0, 0, 0, 2, 4, 3, 1, none),
                new TopicMinute(topic, m0 + TopicMinute.MINUTE_MS, 0, 0, 0, 0, 0, 4, none));
    }

    @Test
    void concurrentHistoryIncrementsLoseNothing() throws Exception {
        long m0 = minuteAgo(3);
        int threads = 4;
        int calls = 25;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                done.add(pool.submit(() -> {
                    for (int c = 0; c < calls; c++) {
                        store.addHistory(List.of(historyMinute(topic, m0, 1, 1, 1, 1, 7, 1),
                                historyMinute(topic, m0 + TopicMinute.MINUTE_MS, 1, 0, 0, 0, 0, 0)));
                    }
                }));
            }
            for (Future<?> f : done) {
                f.get(30, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        int n = threads * calls;
        assertThat(store.history(topic, m0, m0 + 2 * TopicMinute.MINUTE_MS)).containsExactly(
                historyMinute(topic, m0, n, n, n, n, 7, n),
                historyMinute(topic, m0 + TopicMinute.MINUTE_MS, n, 0, 0, 0, 0, 0));
    }

    @Test
    void historyReturnsTheStoredMinutesOfTheRangeOldestFirst() {
        long m0 = minuteAgo(30);
        long minute = TopicMinute.MINUTE_MS;
        String other = "t-" + UUID.randomUUID();
        // given newest first, with an empty minute in between and another topic's minute inside the range
        store.addHistory(List.of(historyMinute(topic, m0 + 4 * minute, 0, 0, 0, 1, 0, 0),
                historyMinute(topic, m0 + 2 * minute, 0, 2, 0, 0, 3, 2),
                TopicMinute.empty(topic, m0 + minute),
                historyMinute(other, m0 + minute, 9, 0, 0, 0, 0, 0),
                historyMinute(topic, m0, 1, 0, 0, 0, 0, 0)));

        assertThat(store.history(topic, m0, m0 + 5 * minute)).containsExactly(
                historyMinute(topic, m0, 1, 0, 0, 0, 0, 0),
                historyMinute(topic, m0 + 2 * minute, 0, 2, 0, 0, 3, 2),
                historyMinute(topic, m0 + 4 * minute, 0, 0, 0, 1, 0, 0));
        assertThat(store.history(topic, m0 + minute, m0 + 4 * minute)).extracting(TopicMinute::minute)
                .containsExactly(m0 + 2 * minute);
        assertThat(store.history(topic, m0 + minute, m0 + 2 * minute)).isEmpty();
        assertThat(store.history(topic, m0, m0)).isEmpty();
        assertThat(store.history("t-" + UUID.randomUUID(), m0, m0 + 5 * minute)).isEmpty();
    }

    @Test
    void historyRefusesArgumentsItCannotServe() {
        long m0 = minuteAgo(1);
        long week = TopicMinute.RETENTION_MS;
        assertThatThrownBy(() -> store.history(topic, m0, m0 - TopicMinute.MINUTE_MS))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> store.history(topic, m0 - week - TopicMinute.MINUTE_MS, m0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(store.history(topic, m0 - week, m0)).isEmpty();
        assertThatThrownBy(() -> store.history("no/such topic", m0, m0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> store.addHistory(List.of(historyMinute("no/such topic", m0, 1, 0, 0, 0, 0, 0))))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> store.addHistory(List.of(historyMinute(topic, m0, -1, 0, 0, 0, 0, 0))))
                .isInstanceOf(IllegalArgumentException.class);
    }

    /** The start of the minute {@code n} minutes before the store's now. */
    private long minuteAgo(int n) {
        long now = store.now();
        return now - now % TopicMinute.MINUTE_MS - n * TopicMinute.MINUTE_MS;
    }

    /** A minute with the given counts and {@code late} deliveries in lateness bucket {@code bucket}. */
    private static TopicMinute historyMinute(String topic, long minute, long enqueued, long delivered, long failed,
                                             long dead, int bucket, long late) {
        long[] lateness = new long[LatenessBuckets.COUNT];
        lateness[bucket] = late;
        return new TopicMinute(topic, minute, enqueued, delivered, failed, dead, lateness);
    }

    // ------------------------------------------------------------------ helpers

    // ------------------------------------------------------------------ delivery protections (issue 16)

    @Test
    void aJobsOwnDeadNoticeTargetSurvivesTheRoundTripAndTheOutbox() {
        Callback onDead = new Callback("https://ops.example.test/dead", Map.of("X-Team", "billing"));
        store.enqueue(NewJob.delayed(topic, "noticed", PAYLOAD, 0, 1).withOnDead(onDead));
        assertThat(find("noticed").onDead()).isEqualTo(onDead);
        store.enqueue(NewJob.delayed(topic, "plain", PAYLOAD, 0, 1));
        assertThat(find("plain").onDead()).isNull();

        Lease lease = awaitLease(Delivery.PULL, 2_000);
        Lease other = awaitLease(Delivery.PULL, 2_000);
        assertThat(store.nack(LeaseRef.of(lease), Failure.dead("boom", 500))).isEqualTo(StoreStatus.OK);
        assertThat(store.nack(LeaseRef.of(other), Failure.dead("boom", 500))).isEqualTo(StoreStatus.OK);
        Map<String, Callback> targets = new java.util.HashMap<>();
        outboxOf(topic).forEach(e -> targets.put(e.job().id(), e.job().onDead()));
        assertThat(targets).containsEntry("noticed", onDead).containsEntry("plain", null).hasSize(2);
    }

    @Test
    void theDeadNoticeTargetIsPartOfTheFingerprint() {
        NewJob job = NewJob.delayed(topic, "fp", PAYLOAD, 60_000, 3);
        Callback onDead = Callback.of("https://ops.example.test/dead");
        assertThat(store.enqueue(job.withOnDead(onDead)).status()).isEqualTo(StoreStatus.OK);
        assertThat(store.enqueue(job.withOnDead(onDead)).created()).isFalse();
        assertThat(store.enqueue(job.withOnDead(Callback.of("https://ops.example.test/other"))).status())
                .isEqualTo(StoreStatus.CONFLICT);
        assertThat(store.enqueue(job).status()).isEqualTo(StoreStatus.CONFLICT);
    }

    @Test
    void aHeldJobGetsItsAttemptBackAndIsNeverMadeDead() {
        store.enqueue(NewJob.delayed(topic, "held", PAYLOAD, 0, 1));
        Lease lease = awaitLease(Delivery.PULL, 2_000);
        assertThat(lease.attempt()).isEqualTo(1);
        long before = store.now();
        // maxAttempts 1 and the one attempt leased: a failure would make it dead; a hold must not.
        assertThat(store.nack(LeaseRef.of(lease), Failure.held(300, "circuit open for http://x.test:80")))
                .isEqualTo(StoreStatus.OK);
        Job held = find("held");
        assertThat(held.state()).isEqualTo(JobState.SCHEDULED);
        assertThat(held.attempts()).isZero();
        assertThat(held.runAt()).isGreaterThanOrEqualTo(before + 300);
        assertThat(held.history()).hasSize(1);
        Attempt entry = held.history().get(0);
        assertThat(entry.isHeld()).isTrue();
        assertThat(entry.number()).isEqualTo(1);
        assertThat(entry.error()).isEqualTo("circuit open for http://x.test:80");
        assertThat(held.lastError()).isNull();
        assertThat(store.nack(LeaseRef.of(lease), Failure.held(0, "again"))).isEqualTo(StoreStatus.STALE_LEASE);

        Lease again = awaitLease(Delivery.PULL, 3_000);
        assertThat(again.attempt()).as("the held attempt was given back").isEqualTo(1);
        assertThat(again.job().history().get(0).isHeld()).isTrue();
        assertThat(store.nack(LeaseRef.of(again), Failure.retryAfter(0, "real failure", 503)))
                .isEqualTo(StoreStatus.OK);
        Job dead = find("held");
        assertThat(dead.state()).as("a real failure of the last attempt still kills it").isEqualTo(JobState.DEAD);
        assertThat(dead.history()).extracting(Attempt::isHeld).containsExactly(true, false);
    }

    @Test
    void aCircuitOpensAfterTheThresholdAndIsProbedOncePerDoublingInterval() {
        CircuitBreakers breakers = store.circuitBreakers();
        String origin = "http://" + topic + ".test:80";
        // intervals of seconds: a caller that starts its claim late on a busy machine must not find a second probe due
        BreakerPolicy policy = new BreakerPolicy(true, 3, 2_000, 5_000, 10);
        assertThat(breakers.circuit(origin)).isEqualTo(OriginCircuit.closed(origin));

        assertThat(breakers.recordFailure(origin, policy).state()).isEqualTo(CircuitState.CLOSED);
        OriginCircuit two = breakers.recordFailure(origin, policy);
        assertThat(two.consecutiveFailures()).isEqualTo(2);
        assertThat(two.isOpen()).isFalse();
        assertThat(breakers.claimProbe(origin)).as("a closed circuit has no probe").isFalse();
        long before = store.now();
        OriginCircuit open = breakers.recordFailure(origin, policy);
        long after = store.now();
        assertThat(open.isOpen()).isTrue();
        assertThat(open.consecutiveFailures()).isEqualTo(3);
        assertThat(open.openedAt()).isBetween(before, after);
        assertThat(open.probeIntervalMs()).isEqualTo(2_000);
        assertThat(open.nextProbeAt()).isEqualTo(open.openedAt() + 2_000);
        assertThat(breakers.claimProbe(origin)).as("not due yet").isFalse();

        awaitTrue(() -> store.now() >= open.nextProbeAt(), 5_000);
        List<Boolean> claims = Collections.synchronizedList(new ArrayList<>());
        try (JobStore second = newStore()) {
            ExecutorService pool = Executors.newFixedThreadPool(4);
            try {
                List<Future<?>> tasks = new ArrayList<>();
                for (int i = 0; i < 8; i++) {
                    CircuitBreakers b = i % 2 == 0 ? breakers : second.circuitBreakers();
                    tasks.add(pool.submit(() -> claims.add(b.claimProbe(origin))));
                }
                for (Future<?> t : tasks) {
                    t.get(10, TimeUnit.SECONDS);
                }
            } catch (Exception e) {
                throw new AssertionError(e);
            } finally {
                pool.shutdownNow();
            }
        }
        assertThat(claims).as("exactly one caller wins a due probe").containsOnlyOnce(true).hasSize(8);

        OriginCircuit failedProbe = breakers.recordFailure(origin, policy);
        assertThat(failedProbe.probeIntervalMs()).as("doubled").isEqualTo(4_000);
        OriginCircuit capped = breakers.recordFailure(origin, policy);
        assertThat(capped.probeIntervalMs()).as("capped").isEqualTo(5_000);
        assertThat(capped.openedAt()).as("still the same opening").isEqualTo(open.openedAt());

        List<JobRef> five = java.util.stream.IntStream.range(0, 5).mapToObj(i -> new JobRef(topic, "held-" + i))
                .toList();
        breakers.updateHeld(origin, five, List.of());
        breakers.updateHeld(origin, List.of(), five.subList(0, 2));
        assertThat(breakers.circuit(origin).heldJobs()).isEqualTo(3);
        OriginCircuit closed = breakers.recordSuccess(origin);
        assertThat(closed.state()).isEqualTo(CircuitState.CLOSED);
        assertThat(closed.consecutiveFailures()).isZero();
        assertThat(closed.closedAt()).isNotNull().isGreaterThanOrEqualTo(open.openedAt());
        assertThat(closed.heldJobs()).as("held jobs are released by the engine, not by closing").isEqualTo(3);
        breakers.updateHeld(origin, List.of(), five);
        assertThat(breakers.circuit(origin).heldJobs()).as("released twice, counted once").isZero();
        assertThat(breakers.circuits()).extracting(OriginCircuit::origin).contains(origin);
        assertThat(breakers.recordFailure(origin, policy).isOpen()).as("counting starts over after closing").isFalse();
    }

    @Test
    void aSuccessResetsTheFailuresOfAClosedCircuit() {
        CircuitBreakers breakers = store.circuitBreakers();
        String origin = "https://" + topic + ".test:443";
        BreakerPolicy policy = new BreakerPolicy(true, 2, 1_000, 60_000, 10);
        breakers.recordFailure(origin, policy);
        assertThat(breakers.recordSuccess(origin).consecutiveFailures()).isZero();
        assertThat(breakers.recordFailure(origin, policy).isOpen()).isFalse();
        assertThat(breakers.recordFailure(origin, policy).isOpen()).isTrue();
    }

    protected Job find(String id) {
        Optional<Job> job = store.find(new JobRef(topic, id));
        assertThat(job).as("job %s/%s", topic, id).isPresent();
        return job.get();
    }

    protected Lease awaitLease(Delivery lane, long timeoutMs) {
        return awaitLease(lane, timeoutMs, 30_000);
    }

    /** Reserves one job of the test's topic, retrying until one is due. */
    protected Lease awaitLease(Delivery lane, long timeoutMs, long leaseMs) {
        long deadline = System.currentTimeMillis() + timeoutMs;
        do {
            List<Lease> leases = store.reserve(topic, lane, 1, leaseMs).leases();
            if (!leases.isEmpty()) {
                return leases.get(0);
            }
            sleep(10);
        } while (System.currentTimeMillis() < deadline);
        throw new AssertionError("no job of " + topic + " became due within " + timeoutMs + " ms");
    }

    /** This topic's outbox entries (other test classes share the outbox). */
    protected List<OutboxEntry> outboxOf(String t) {
        List<OutboxEntry> mine = new ArrayList<>();
        for (OutboxEntry e : store.readOutbox(100_000)) {
            if (e.ref().topic().equals(t)) {
                mine.add(e);
            }
        }
        return Collections.unmodifiableList(mine);
    }

    /** A reserve made before {@code runAt} (by the store's clock) got nothing and names runAt as next. */
    private static void assertNothingBefore(ReserveResult r, long runAt) {
        if (r.now() < runAt) {
            assertThat(r.leases()).as("nothing is handed out before its runAt").isEmpty();
            assertThat(r.nextDueAt()).isEqualTo(runAt);
        } else {
            // a stalled test thread reached the run time already; then the job may be handed out, not before
            assertThat(r.leases()).allSatisfy(l -> assertThat(r.now()).isGreaterThanOrEqualTo(l.job().runAt()));
        }
    }

    private static StoreListener listener(String topic, List<Job> heard) {
        return new StoreListener() {
            @Override
            public void onWake(String t, long dueAt) {
            }

            @Override
            public void onBroadcast(Job job) {
                if (job.topic().equals(topic)) {
                    heard.add(job);
                }
            }
        };
    }

    private static void assertStale(Runnable action) {
        assertStatus(action, StoreStatus.STALE_LEASE);
    }

    private static void assertStatus(Runnable action, StoreStatus status) {
        assertThatThrownBy(action::run).isInstanceOfSatisfying(StoreException.class,
                e -> assertThat(e.status()).isEqualTo(status));
    }

    protected static void awaitTrue(BooleanSupplier condition, long timeoutMs) {
        long deadline = System.currentTimeMillis() + timeoutMs;
        while (!condition.getAsBoolean()) {
            if (System.currentTimeMillis() > deadline) {
                throw new AssertionError("condition not met within " + timeoutMs + " ms");
            }
            sleep(10);
        }
    }

    private static void awaitLatch(CountDownLatch latch) {
        try {
            assertThat(latch.await(10, TimeUnit.SECONDS)).as("latch released").isTrue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    protected static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }
}
