package io.delayq.mongo;

import io.delayq.core.Callback;
import io.delayq.core.Delivery;
import io.delayq.core.Job;
import io.delayq.core.JobRef;
import io.delayq.core.JobRules;
import io.delayq.core.JobState;
import io.delayq.core.Lease;
import io.delayq.core.StoreException;
import io.delayq.core.StoreStatus;
import io.delayq.core.archive.Archiver;
import io.delayq.core.archive.DeadLetter;
import io.delayq.core.archive.DeadLetterQuery;
import io.delayq.core.archive.DeadLetterReplayer;
import io.delayq.core.archive.ReplayOutcome;
import io.delayq.core.archive.ReplayRequest;
import io.delayq.redis.RedisJobStore;
import com.codahale.metrics.MetricRegistry;
import io.delayq.redis.testing.TestRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static io.delayq.core.testing.StoreFixtures.killJob;
import static io.delayq.core.testing.StoreFixtures.newTopic;
import static io.delayq.core.testing.StoreFixtures.reserveOne;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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

    private static DeadLetterReplayer replayer(long dedupWindowMs) {
        return new DeadLetterReplayer(store, fixture.archive, JobRules.defaults(), dedupWindowMs);
    }

    @Test
    void aReplayIsAFreshJobThatIsDeliveredAsAttemptOne() {
        String topic = newTopic();
        DeadLetter dead = deadLetter(topic, "pay-1");

        ReplayOutcome outcome = replayer(10_000).replay(dead.ref(), ReplayRequest.now());

        assertThat(outcome.duplicate()).isFalse();
        assertThat(outcome.replay().newJobId()).isEqualTo("pay-1:r1");
        assertThat(outcome.job().state()).isEqualTo(JobState.SCHEDULED);
        assertThat(outcome.job().attempts()).isZero();
        assertThat(outcome.job().payload()).isEqualTo(dead.job().payload());
        assertThat(outcome.deadLetter().replayCount()).isEqualTo(1);
        Lease lease = reserveOne(store, topic);
        assertThat(lease.ref()).isEqualTo(new JobRef(topic, "pay-1:r1"));
        assertThat(lease.attempt()).isEqualTo(1);
        assertThat(fixture.archive.deadLetter(dead.ref()).orElseThrow().replays())
                .extracting(DeadLetter.Replay::newJobId).containsExactly("pay-1:r1");
    }

    @Test
    void aDoubleClickSchedulesOneJob() {
        String topic = newTopic();
        DeadLetter dead = deadLetter(topic, "dc");

        ReplayOutcome first = replayer(10_000).replay(dead.ref(), ReplayRequest.now());
        ReplayOutcome second = replayer(10_000).replay(dead.ref(), ReplayRequest.now());

        assertThat(second.duplicate()).isTrue();
        assertThat(second.replay()).isEqualTo(first.replay());
        assertThat(store.find(new JobRef(topic, "dc:r2"))).isEmpty();
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
        assertThat(b.replay().newJobId()).isEqualTo("race:r1");
        assertThat(store.find(new JobRef(topic, "race:r2"))).isEmpty();
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

        assertThat(one.replay().newJobId()).isEqualTo("keys:r1");
        assertThat(repeat.duplicate()).isTrue();
        assertThat(repeat.replay().newJobId()).isEqualTo("keys:r1");
        assertThat(two.duplicate()).isFalse();
        assertThat(two.replay().newJobId()).isEqualTo("keys:r2");
        assertThat(fixture.archive.deadLetter(dead.ref()).orElseThrow().replayCount()).isEqualTo(2);
    }

    @Test
    void aReplayScheduledByARequestThatDiedBeforeRecordingItIsRecordedNotDoubled() {
        String topic = newTopic();
        DeadLetter dead = deadLetter(topic, "crash");
        // The earlier request scheduled crash:r1 (with a delay) and died before recording the replay.
        store.enqueue(io.delayq.core.NewJob.delayed(topic, "crash:r1", dead.job().payload(), 30_000, 2));

        ReplayOutcome outcome = replayer(0).replay(dead.ref(), ReplayRequest.now());

        assertThat(outcome.duplicate()).isFalse();
        assertThat(outcome.replay().newJobId()).isEqualTo("crash:r1");
        assertThat(outcome.deadLetter().replayCount()).isEqualTo(1);
        assertThat(store.find(new JobRef(topic, "crash:r2"))).isEmpty();
    }

    @Test
    void aReplayIdTakenByAnUnrelatedJobIsAConflictNotAReplay() {
        String topic = newTopic();
        DeadLetter dead = deadLetter(topic, "taken");
        store.enqueue(io.delayq.core.NewJob.delayed(topic, "taken:r1", "{\"someone\":\"else\"}", 30_000, 2));

        assertThatThrownBy(() -> replayer(0).replay(dead.ref(), ReplayRequest.now()))
                .isInstanceOfSatisfying(StoreException.class, e -> assertThat(e.status()).isEqualTo(StoreStatus.CONFLICT))
                .hasMessageContaining("taken:r1");
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
        assertThat(store.find(new JobRef(topic, "neg:r1"))).isEmpty();
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
        deadLetter(topic, "b1");
        deadLetter(topic, "b2");
        replayer(0).replay(first, ReplayRequest.now());

        var all = replayer(0).replayAll(DeadLetterQuery.topic(topic), null, false, 1000);
        var again = replayer(0).replayAll(DeadLetterQuery.topic(topic), null, false, 1000);
        var forced = replayer(0).replayAll(DeadLetterQuery.topic(topic), null, true, 1000);

        assertThat(all.replayed()).isEqualTo(2);
        assertThat(all.more()).isFalse();
        assertThat(again.replayed()).isZero();
        assertThat(forced.replayed()).isEqualTo(3);
        assertThat(store.find(new JobRef(topic, "b1:r1"))).isPresent();
        assertThat(store.find(new JobRef(topic, "b0:r2"))).isPresent();
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

    @Test
    void replayIdsStayWithinTheIdLimit() {
        String longId = "x".repeat(128);
        String r1 = DeadLetterReplayer.replayId(longId, 1);
        String r12 = DeadLetterReplayer.replayId(longId, 12);

        assertThat(r1).hasSizeLessThanOrEqualTo(128).endsWith(":r1");
        assertThat(r12).hasSizeLessThanOrEqualTo(128).endsWith(":r12");
        assertThat(JobRules.checkId(r1)).isEqualTo(r1);
        assertThat(DeadLetterReplayer.replayId("short", 3)).isEqualTo("short:r3");
    }
}
