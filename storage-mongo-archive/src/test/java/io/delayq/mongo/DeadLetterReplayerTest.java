package io.delayq.mongo;

import io.delayq.core.Callback;
import io.delayq.core.Delivery;
import io.delayq.core.Job;
import io.delayq.core.JobRef;
import io.delayq.core.JobRules;
import io.delayq.core.JobState;
import io.delayq.core.Lease;
import io.delayq.core.LeaseRef;
import io.delayq.core.StoreException;
import io.delayq.core.StoreStatus;
import io.delayq.core.archive.Archiver;
import io.delayq.core.archive.BulkReplayResult;
import io.delayq.core.archive.BulkReplayResult.Outcome;
import io.delayq.core.archive.DeadLetter;
import io.delayq.core.archive.DeadLetterQuery;
import io.delayq.core.archive.DeadLetterReplayer;
import io.delayq.core.archive.ReplayOutcome;
import io.delayq.core.archive.ReplayRequest;
import io.delayq.core.testing.Await;
import io.delayq.redis.RedisJobStore;
import io.delayq.redis.RedisStoreOptions;
import com.codahale.metrics.MetricRegistry;
import io.delayq.redis.testing.TestRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static io.delayq.core.testing.StoreFixtures.killJob;
import static io.delayq.core.testing.StoreFixtures.newTopic;
import static io.delayq.core.testing.StoreFixtures.reserveOne;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

class DeadLetterReplayerTest {
    @TempDir
    static Path dataDir;

    private static RedisJobStore store;
    private static ArchiveFixture fixture;
    private static Archiver archiver;

    @BeforeAll
    static void start() {
        store = RedisJobStore.connect(TestRedis.sharedUri());
        fixture = ArchiveFixture.start(dataDir);
        archiver = new Archiver(store, fixture.archive, new MetricRegistry());
    }

    @AfterAll
    static void stop() {
        fixture.close();
        store.close();
    }

    /** A job killed in the store and archived. */
    private static DeadLetter deadLetter(String topic, String id) {
        JobRef ref = killJob(store, topic, id, 2);
        while (archiver.drainOnce() > 0) {
            // move everything dead so far into the archive
        }
        return fixture.archive.deadLetter(ref).orElseThrow();
    }

    /** The job the n-th replay of a dead letter schedules. */
    private static JobRef replayOf(DeadLetter dead, int number) {
        return new JobRef(dead.job().topic(), DeadLetterReplayer.replayId(dead, number));
    }

    private static DeadLetterReplayer replayer(long dedupWindowMs) {
        return new DeadLetterReplayer(store, fixture.archive, JobRules.defaults(), dedupWindowMs);
    }

    @Test
    void aReplayIsAFreshJobThatIsDeliveredAsAttemptOne() {
        String topic = newTopic();
        DeadLetter dead = deadLetter(topic, "pay-1");

        ReplayOutcome outcome = replayer(10_000).replay(dead.ref(), ReplayRequest.now());

        assertThat(outcome.duplicate()).isFalse();
        assertThat(outcome.replay().newJobId()).isEqualTo("pay-1:" + dead.job().createdAt() + ":r1");
        assertThat(outcome.job().state()).isEqualTo(JobState.SCHEDULED);
        assertThat(outcome.job().attempts()).isZero();
        assertThat(outcome.job().payload()).isEqualTo(dead.job().payload());
        assertThat(outcome.deadLetter().replayCount()).isEqualTo(1);
        Lease lease = reserveOne(store, topic);
        assertThat(lease.ref()).isEqualTo(replayOf(dead, 1));
        assertThat(lease.attempt()).isEqualTo(1);
        assertThat(fixture.archive.deadLetter(dead.ref()).orElseThrow().replays())
                .extracting(DeadLetter.Replay::newJobId).containsExactly(replayOf(dead, 1).id());
    }

    @Test
    void aDoubleClickSchedulesOneJob() {
        String topic = newTopic();
        DeadLetter dead = deadLetter(topic, "dc");

        ReplayOutcome first = replayer(10_000).replay(dead.ref(), ReplayRequest.now());
        ReplayOutcome second = replayer(10_000).replay(dead.ref(), ReplayRequest.now());

        assertThat(second.duplicate()).isTrue();
        assertThat(second.replay()).isEqualTo(first.replay());
        assertThat(store.find(replayOf(dead, 2))).isEmpty();
        assertThat(fixture.archive.deadLetter(dead.ref()).orElseThrow().replayCount()).isEqualTo(1);
    }

    @Test
    void twoReplaysRacingOnTheSameDeadLetterScheduleOneJob() {
        String topic = newTopic();
        DeadLetter stale = deadLetter(topic, "race");
        // No dedup window: only the replay id and the conditional record keep them apart.
        DeadLetterReplayer replayer = replayer(0);

        ReplayOutcome a = replayer.replay(stale, ReplayRequest.now());
        ReplayOutcome b = replayer.replay(stale, ReplayRequest.now());

        assertThat(a.duplicate()).isFalse();
        assertThat(b.duplicate()).isTrue();
        assertThat(b.replay().newJobId()).isEqualTo(replayOf(stale, 1).id());
        assertThat(store.find(replayOf(stale, 2))).isEmpty();
        assertThat(fixture.archive.deadLetter(stale.ref()).orElseThrow().replayCount()).isEqualTo(1);
    }

    @Test
    void requestKeysTellARepeatFromAnotherReplay() {
        String topic = newTopic();
        DeadLetter dead = deadLetter(topic, "keys");
        DeadLetterReplayer replayer = replayer(0);

        ReplayOutcome one = replayer.replay(dead.ref(), new ReplayRequest(null, null, "click-1"));
        ReplayOutcome repeat = replayer.replay(dead.ref(), new ReplayRequest(null, null, "click-1"));
        ReplayOutcome two = replayer.replay(dead.ref(), new ReplayRequest(null, null, "click-2"));

        assertThat(one.replay().newJobId()).isEqualTo(replayOf(dead, 1).id());
        assertThat(repeat.duplicate()).isTrue();
        assertThat(repeat.replay().newJobId()).isEqualTo(replayOf(dead, 1).id());
        assertThat(two.duplicate()).isFalse();
        assertThat(two.replay().newJobId()).isEqualTo(replayOf(dead, 2).id());
        assertThat(fixture.archive.deadLetter(dead.ref()).orElseThrow().replayCount()).isEqualTo(2);
    }

    @Test
    void aReplayScheduledByARequestThatDiedBeforeRecordingItIsRecordedNotDoubled() {
        String topic = newTopic();
        DeadLetter dead = deadLetter(topic, "crash");
        // The earlier request scheduled the first replay (with a delay) and died before recording it.
        store.enqueue(io.delayq.core.NewJob.delayed(topic, replayOf(dead, 1).id(), dead.job().payload(), 30_000, 2));

        ReplayOutcome outcome = replayer(0).replay(dead.ref(), ReplayRequest.now());

        assertThat(outcome.duplicate()).isFalse();
        assertThat(outcome.replay().newJobId()).isEqualTo(replayOf(dead, 1).id());
        assertThat(outcome.deadLetter().replayCount()).isEqualTo(1);
        assertThat(store.find(replayOf(dead, 2))).isEmpty();
    }

    @Test
    void aReplayIdTakenByAnUnrelatedJobIsAConflictNotAReplay() {
        String topic = newTopic();
        DeadLetter dead = deadLetter(topic, "taken");
        store.enqueue(io.delayq.core.NewJob.delayed(topic, replayOf(dead, 1).id(), "{\"someone\":\"else\"}", 30_000, 2));

        assertThatThrownBy(() -> replayer(0).replay(dead.ref(), ReplayRequest.now()))
                .isInstanceOfSatisfying(StoreException.class, e -> assertThat(e.status()).isEqualTo(StoreStatus.CONFLICT))
                .hasMessageContaining(replayOf(dead, 1).id());
        assertThat(fixture.archive.deadLetter(dead.ref()).orElseThrow().replayCount()).isZero();
    }

    @Test
    void aReplayCanTakeANewDelayAndCallback() {
        String topic = newTopic();
        DeadLetter dead = deadLetter(topic, "moved");
        long before = store.now();

        ReplayOutcome outcome = replayer(0).replay(dead.ref(),
                new ReplayRequest(60_000L, Callback.of("http://127.0.0.1:1/fixed"), null));

        Job job = outcome.job();
        assertThat(job.runAt()).isGreaterThanOrEqualTo(before + 60_000);
        assertThat(job.callback()).isEqualTo(Callback.of("http://127.0.0.1:1/fixed"));
        assertThat(job.delivery()).isEqualTo(Delivery.PUSH);
    }

    @Test
    void aNegativeDelayIsRefusedAndSchedulesNothing() {
        String topic = newTopic();
        DeadLetter dead = deadLetter(topic, "neg");

        assertThatThrownBy(() -> replayer(0).replay(dead.ref(), new ReplayRequest(-1L, null, null)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("delayMs");
        assertThat(store.find(replayOf(dead, 1))).isEmpty();
    }

    @Test
    void replayingAJobWithoutADeadLetterIsNotFound() {
        assertThatThrownBy(() -> replayer(0).replay(new JobRef(newTopic(), "ghost"), ReplayRequest.now()))
                .isInstanceOfSatisfying(StoreException.class, e -> assertThat(e.status()).isEqualTo(StoreStatus.NOT_FOUND));
    }

    @Test
    void bulkReplayReplaysEachOnceUnlessAskedAgain() {
        String topic = newTopic();
        DeadLetter first = deadLetter(topic, "b0");
        DeadLetter second = deadLetter(topic, "b1");
        deadLetter(topic, "b2");
        replayer(0).replay(first, ReplayRequest.now());

        var all = replayer(0).replayAll(DeadLetterQuery.topic(topic), null, false, 1000);
        var again = replayer(0).replayAll(DeadLetterQuery.topic(topic), null, false, 1000);
        var forced = replayer(0).replayAll(DeadLetterQuery.topic(topic), null, true, 1000);

        assertThat(all.replayed()).isEqualTo(2);
        assertThat(all.more()).isFalse();
        assertThat(again.replayed()).isZero();
        assertThat(forced.replayed()).isEqualTo(3);
        assertThat(store.find(replayOf(second, 1))).isPresent();
        assertThat(store.find(replayOf(first, 2))).isPresent();
    }

    /** A bulk replay takes the dashboard's filters as a listing does: here, only ids with the prefix. */
    @Test
    void bulkReplayReplaysOnlyWhatTheDashboardsFiltersMatch() {
        String topic = newTopic();
        DeadLetter kept = deadLetter(topic, "keep-0");
        DeadLetter first = deadLetter(topic, "take-0");
        DeadLetter second = deadLetter(topic, "take-1");

        var taken = replayer(0).replayAll(DeadLetterQuery.topic(topic).withIdPrefix("take-"), null, false, 1000);

        assertThat(taken.replayed()).isEqualTo(2);
        assertThat(store.find(replayOf(first, 1))).isPresent();
        assertThat(store.find(replayOf(second, 1))).isPresent();
        assertThat(store.find(replayOf(kept, 1))).isEmpty();
        assertThat(fixture.archive.deadLetter(kept.key()).orElseThrow().replayCount()).isZero();
    }

    /**
     * Issue 12 #5: one dead letter that cannot be replayed (its replay id is taken by another job) does not stop a bulk
     * replay: the letters after it are replayed, and the answer says which one failed and why; a retry replays
     * nothing twice and reports the same failure again.
     */
    @Test
    void bulkReplayGoesOnPastALetterThatCannotBeReplayedAndSaysWhy() {
        String topic = newTopic();
        DeadLetter g0 = deadLetter(topic, "g0");
        DeadLetter bad = deadLetter(topic, "g1");
        DeadLetter g2 = deadLetter(topic, "g2");
        takeReplayId(bad);

        BulkReplayResult result = replayer(0).replayAll(DeadLetterQuery.topic(topic), null, false, 1000);
        BulkReplayResult retry = replayer(0).replayAll(DeadLetterQuery.topic(topic), null, false, 1000);

        assertThat(result.letters()).extracting(BulkReplayResult.LetterOutcome::key, BulkReplayResult.LetterOutcome::outcome)
                .containsExactly(tuple(g2.key(), Outcome.REPLAYED), tuple(bad.key(), Outcome.FAILED),
                        tuple(g0.key(), Outcome.REPLAYED));
        assertThat(result.replayed()).isEqualTo(2);
        assertThat(result.failed()).isEqualTo(1);
        assertThat(result.failures()).singleElement().satisfies(f -> {
            assertThat(f.ref()).isEqualTo(bad.ref());
            assertThat(f.error()).isInstanceOfSatisfying(StoreException.class,
                    e -> assertThat(e.status()).isEqualTo(StoreStatus.CONFLICT));
            assertThat(f.error()).hasMessageContaining(replayOf(bad, 1).id()).hasMessageContaining("already used");
        });
        assertThat(result.more()).isFalse();
        assertThat(result.nextCursor()).isNull();
        assertThat(result.stopped()).isNull();
        assertThat(store.find(replayOf(g0, 1))).isPresent();
        assertThat(store.find(replayOf(g2, 1))).isPresent();

        assertThat(retry.replayed()).isZero();
        assertThat(retry.failures()).extracting(BulkReplayResult.LetterOutcome::key).containsExactly(bad.key());
        assertThat(fixture.archive.deadLetter(g0.key()).orElseThrow().replayCount()).isEqualTo(1);
        assertThat(fixture.archive.deadLetter(bad.key()).orElseThrow().replayCount()).isZero();
    }

    /** Letters that keep failing take up a request's max; its cursor goes on past them. */
    @Test
    void bulkReplayGoesOnFromItsCursorPastLettersThatKeepFailing() {
        String topic = newTopic();
        DeadLetter h0 = deadLetter(topic, "h0");
        DeadLetter h1 = deadLetter(topic, "h1");
        takeReplayId(deadLetter(topic, "h2"));
        takeReplayId(deadLetter(topic, "h3"));

        BulkReplayResult first = replayer(0).replayAll(DeadLetterQuery.topic(topic), null, false, 2);
        BulkReplayResult fromTheTop = replayer(0).replayAll(DeadLetterQuery.topic(topic), null, false, 2);
        BulkReplayResult onwards = replayer(0).replayAll(DeadLetterQuery.topic(topic).withCursor(first.nextCursor()),
                null, false, 2);

        assertThat(first.failed()).isEqualTo(2);
        assertThat(first.more()).isTrue();
        assertThat(first.nextCursor()).isNotNull();
        assertThat(fromTheTop.failed()).isEqualTo(2);
        assertThat(onwards.letters()).extracting(BulkReplayResult.LetterOutcome::key).containsExactly(h1.key(), h0.key());
        assertThat(onwards.replayed()).isEqualTo(2);
        assertThat(onwards.more()).isFalse();
    }

    /**
     * The store failing part-way (here Redis refusing the enqueue of one topic's replay: its job hash was replaced by a
     * string) stops the run where it is: what was replayed stays replayed, the answer says why it stopped, and its
     * cursor goes on at the letter that could not be replayed once the store is back. Failing before anything was
     * replayed is an error, as for any request that changed nothing.
     */
    @Test
    void bulkReplayThatLosesTheStorePartWayStopsAndSaysWhereToGoOn() {
        long since = store.now();
        String healthy = newTopic();
        String broken = newTopic();
        DeadLetter oldest = deadLetter(healthy, "s0");
        Await.sleep(5);
        DeadLetter middle = deadLetter(broken, "s1");
        Await.sleep(5);
        DeadLetter newest = deadLetter(healthy, "s2");
        String jobsKey = "dq:{" + broken + "#0}:jobs";
        DeadLetterQuery mine = new DeadLetterQuery(null, since, null, null, 50, null);
        BulkReplayResult stopped;
        try (UnifiedJedis redis = RedisClient.create(TestRedis.sharedUri())) {
            redis.del(jobsKey);
            redis.set(jobsKey, "not a hash");

            stopped = replayer(0).replayAll(mine, null, false, 1000);
            assertThatThrownBy(() -> replayer(0).replayAll(DeadLetterQuery.topic(broken), null, false, 1000))
                    .isInstanceOfSatisfying(StoreException.class,
                            e -> assertThat(e.status()).isEqualTo(StoreStatus.UNAVAILABLE));

            redis.del(jobsKey);
        }
        BulkReplayResult resumed = replayer(0).replayAll(mine.withCursor(stopped.nextCursor()), null, false, 1000);

        assertThat(stopped.letters()).extracting(BulkReplayResult.LetterOutcome::key).containsExactly(newest.key());
        assertThat(stopped.stopped()).contains("Redis");
        assertThat(stopped.more()).isTrue();
        assertThat(resumed.letters()).extracting(BulkReplayResult.LetterOutcome::key, BulkReplayResult.LetterOutcome::outcome)
                .containsExactly(tuple(middle.key(), Outcome.REPLAYED), tuple(oldest.key(), Outcome.REPLAYED));
        assertThat(resumed.stopped()).isNull();
        assertThat(fixture.archive.deadLetter(middle.key()).orElseThrow().replayCount()).isEqualTo(1);
    }

    private static void takeReplayId(DeadLetter dead) {
        store.enqueue(io.delayq.core.NewJob.delayed(dead.job().topic(), replayOf(dead, 1).id(),
                "{\"someone\":\"else\"}", 30_000, 2));
    }

    @Test
    void bulkReplayStopsAtItsMaximumAndSaysThereIsMore() {
        String topic = newTopic();
        for (int i = 0; i < 3; i++) {
            deadLetter(topic, "m" + i);
        }

        var firstTwo = replayer(0).replayAll(DeadLetterQuery.topic(topic), null, false, 2);
        var rest = replayer(0).replayAll(DeadLetterQuery.topic(topic), null, false, 2);

        assertThat(firstTwo.replayed()).isEqualTo(2);
        assertThat(firstTwo.more()).isTrue();
        assertThat(rest.replayed()).isEqualTo(1);
        assertThat(rest.more()).isFalse();
    }

    /**
     * Issue 12 #4: an id that dies in two lives has two dead letters; the first life's replay has been delivered and
     * is still remembered by the store when the second life's letter is replayed. That replay must be a job of its
     * own, and be delivered, rather than answer the first life's finished job.
     */
    @Test
    void eachLifeOfAReusedIdIsReplayedAndDeliveredOnItsOwn() {
        // A store that forgets finished jobs after 2 s (trimmed every 50 ms), so that the id can live twice.
        Duration retention = Duration.ofSeconds(2);
        try (RedisJobStore forgetful = RedisJobStore.connect(TestRedis.sharedUri(), RedisStoreOptions.defaults()
                .withFinishedRetention(retention).withTrimInterval(Duration.ofMillis(50)))) {
            Archiver archiverOfForgetful = new Archiver(forgetful, fixture.archive, new MetricRegistry());
            DeadLetterReplayer replayer = new DeadLetterReplayer(forgetful, fixture.archive, JobRules.defaults(), 0);
            String topic = newTopic();
            JobRef ref = new JobRef(topic, "twice");

            killJob(forgetful, topic, "twice", 2);
            drain(archiverOfForgetful);
            ReplayOutcome first = replayer.replay(ref, ReplayRequest.now());
            Await.until("the first life is forgotten by the store", () -> forgetful.find(ref).isEmpty());
            Lease firstDelivery = reserveOne(forgetful, topic);
            assertThat(firstDelivery.ref().id()).isEqualTo(first.replay().newJobId());
            assertThat(forgetful.ack(List.of(LeaseRef.of(firstDelivery)))).containsExactly(StoreStatus.OK);

            killJob(forgetful, topic, "twice", 2);
            drain(archiverOfForgetful);
            DeadLetter secondLife = fixture.archive.deadLetter(ref).orElseThrow();
            assertThat(secondLife.key()).isNotEqualTo(first.deadLetter().key());
            // The scenario of the defect: the first life's replay is finished and still remembered.
            assertThat(forgetful.find(new JobRef(topic, first.replay().newJobId())))
                    .hasValueSatisfying(j -> assertThat(j.state()).isEqualTo(JobState.SUCCEEDED));

            ReplayOutcome second = replayer.replay(ref, ReplayRequest.now());

            assertThat(second.duplicate()).isFalse();
            assertThat(second.replay().newJobId()).isNotEqualTo(first.replay().newJobId());
            assertThat(second.job().state()).isEqualTo(JobState.SCHEDULED);
            Lease secondDelivery = reserveOne(forgetful, topic);
            assertThat(secondDelivery.ref().id()).isEqualTo(second.replay().newJobId());
            assertThat(secondDelivery.attempt()).isEqualTo(1);
            assertThat(forgetful.ack(List.of(LeaseRef.of(secondDelivery)))).containsExactly(StoreStatus.OK);
            // Each letter records its own replay; replaying the second life again is a repeat, not a third job.
            assertThat(fixture.archive.deadLetter(first.deadLetter().key()).orElseThrow().replays())
                    .extracting(DeadLetter.Replay::newJobId).containsExactly(first.replay().newJobId());
            assertThat(fixture.archive.deadLetter(secondLife.key()).orElseThrow().replays())
                    .extracting(DeadLetter.Replay::newJobId).containsExactly(second.replay().newJobId());
            ReplayOutcome repeat = new DeadLetterReplayer(forgetful, fixture.archive, JobRules.defaults(), 10_000)
                    .replay(ref, ReplayRequest.now());
            assertThat(repeat.duplicate()).isTrue();
            assertThat(repeat.replay().newJobId()).isEqualTo(second.replay().newJobId());
        }
    }

    private static void drain(Archiver archiver) {
        while (archiver.drainOnce() > 0) {
            // move everything dead so far into the archive
        }
    }

    @Test
    void replayIdsNameTheLifeAndStayWithinTheIdLimit() {
        String longId = "x".repeat(128);
        long createdAt = 1_795_000_000_000L;
        String r1 = DeadLetterReplayer.replayId(longId, createdAt, 1);
        String r12 = DeadLetterReplayer.replayId(longId, createdAt, 12);

        assertThat(r1).hasSizeLessThanOrEqualTo(128).endsWith(":1795000000000:r1");
        assertThat(r12).hasSizeLessThanOrEqualTo(128).endsWith(":1795000000000:r12");
        assertThat(JobRules.checkId(r1)).isEqualTo(r1);
        assertThat(DeadLetterReplayer.replayId(longId, createdAt + 1, 1)).isNotEqualTo(r1);
        assertThat(DeadLetterReplayer.replayId("short", createdAt, 3)).isEqualTo("short:1795000000000:r3");
    }
}
