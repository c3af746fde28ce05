package io.delayq.core;

import io.delayq.core.archive.DeadLetter;
import io.delayq.core.archive.DeadLetterCursor;
import io.delayq.core.archive.BulkReplayResult;
import io.delayq.core.archive.DeadLetterQuery;
import io.delayq.core.archive.DeadLetterReplayer;
import io.delayq.core.archive.DeadNotice;
import io.delayq.core.archive.FailureGroup;
import io.delayq.core.archive.FailureSignature;
import io.delayq.core.archive.JobArchive;
import io.delayq.core.archive.Page;
import io.delayq.core.archive.TopicScope;
import io.delayq.core.tenant.TopicPattern;
import io.delayq.core.testing.StoreFixtures;
import io.dropwizard.util.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

import static io.delayq.core.testing.ArchiveFixtures.PAYLOAD;
import static io.delayq.core.testing.ArchiveFixtures.deadJob;
import static io.delayq.core.testing.ArchiveFixtures.entries;
import static io.delayq.core.testing.ArchiveFixtures.entry;
import static io.delayq.core.testing.ArchiveFixtures.failedJob;
import static io.delayq.core.testing.ArchiveFixtures.succeededJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The behaviour every {@link JobArchive} promises, run against a real backend by each archive module
 * ({@code class MongoJobArchiveContractTest extends JobArchiveContract}). Every test works in its own topic, and
 * narrows every listing and purge to it (or to a time window no other test uses), so test classes may share one
 * backend and run side by side; nothing is dropped.
 *
 * <p>Dead letters here die at fixed times in 1970: listings' time filters can be checked to the millisecond, and a
 * dead letter that old still being there shows that no retention removes dead letters. Succeeded jobs finish "now",
 * so that a backend's own expiry (a TTL monitor) leaves them alone while a test runs; their retention, and that of
 * tombstones, is checked by moving the archive's retention ahead with {@link #expire}.
 *
 * <p>Where the promise concerns several service instances (archivers holding the same outbox entry, operators
 * replaying at once), the test uses two archive instances on the same backend, as two service instances would.
 */
public abstract class JobArchiveContract {

    /**
     * A new archive on the shared test backend, keeping succeeded jobs and tombstones for at least a day; closed
     * after each test. Each call gives another instance on the same data, as another service instance would have.
     */
    protected abstract JobArchive newArchive();

    /**
     * As {@link #newArchive()}, keeping succeeded jobs {@code completedRetention} after they finished, and a purged
     * dead letter's tombstone {@code tombstoneRetention} after the purge. The caller closes it.
     */
    protected abstract JobArchive newArchiveWithRetention(java.time.Duration completedRetention,
                                                          java.time.Duration tombstoneRetention);

    /**
     * Applies {@code archive}'s retention once, to the end, as if the time were {@code nowMs}: removes every
     * succeeded job and tombstone whose retention has run out by then, as the archive's background reaper (or its
     * backend's own expiry) does by itself. Other tests' records go only if their retention ends before
     * {@code nowMs}; tests here move at most a few hours ahead, and {@link #newArchive()} keeps records for a day.
     */
    protected abstract void expire(JobArchive archive, long nowMs);

    /**
     * An archive pointed at a backend that cannot be reached (e.g. a closed port), failing fast (a timeout of a second
     * or less). Building it may fail; either way the failure is a {@link StoreException} with
     * {@link StoreStatus#UNAVAILABLE}.
     */
    protected abstract JobArchive newUnreachableArchive();

    /**
     * A job store on a real backend (the one the module's other tests use), for the replays a bulk replay schedules;
     * closed after the test. Jobs go to topics of their own (those of the test's dead letters).
     */
    protected abstract JobStore newStore();

    protected JobArchive archive;
    protected String topic;
    private final List<JobArchive> others = new ArrayList<>();

    @BeforeEach
    void openArchive() {
        archive = newArchive();
        topic = StoreFixtures.newTopic();
    }

    @AfterEach
    void closeArchives() {
        others.forEach(JobArchive::close);
        others.clear();
        archive.close();
    }

    /** Another instance on the same backend (another service instance), closed after the test. */
    private JobArchive secondInstance() {
        JobArchive second = newArchive();
        others.add(second);
        return second;
    }

    // ------------------------------------------------------------------ writes

    @Test
    void writingTheSameEntryAgainLeavesOneDeadLetter() {
        Job job = deadJob(topic, "a", 1_000, 5_000);

        archive.write(List.of(entry(job)));
        archive.write(List.of(entry(job), entry(job)));
        archive.write(List.of(new OutboxEntry("another-entry-id", job)));
        archive.write(List.of());

        List<DeadLetter> letters = archive.deadLetters(DeadLetterQuery.topic(topic)).items();
        assertThat(letters).hasSize(1);
        assertThat(letters.get(0).key()).isEqualTo(DeadLetter.keyOf(job)).isEqualTo(topic + "/a/1000");
        assertThat(letters.get(0).job()).isEqualTo(job);
        assertThat(letters.get(0).replayCount()).isZero();
    }

    @Test
    void aDeadLetterKeepsTheWholeJobByteForByte() {
        Job job = deadJob(topic, "a", 1_000, 5_000);
        archive.write(List.of(entry(job)));

        DeadLetter letter = archive.deadLetter(job.ref()).orElseThrow();

        assertThat(letter.job()).isEqualTo(job);
        assertThat(letter.job().payload()).isEqualTo(PAYLOAD);
        assertThat(letter.job().history()).extracting(Attempt::number, Attempt::error, Attempt::httpStatus)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(1, "HTTP 500 from callback", 500),
                        org.assertj.core.groups.Tuple.tuple(2, "connection refused", null),
                        org.assertj.core.groups.Tuple.tuple(3, "HTTP 503 from callback", 503));
        assertThat(letter.key()).isEqualTo(DeadLetter.keyOf(job));
        assertThat(letter.ref()).isEqualTo(job.ref());
        assertThat(letter.deadAt()).as("the job's finishedAt").isEqualTo(5_000);
        assertThat(letter.replayCount()).isZero();
        assertThat(letter.replays()).isEmpty();
        assertThat(archive.deadLetter(letter.key())).contains(letter);
        assertThat(archive.find(job.ref())).contains(job);
    }

    @Test
    void everyOptionOfAJobSurvivesTheRoundTrip() {
        Job base = deadJob(topic, "opts", 1_000, 5_000);
        Job schedule = new Job(topic, "sched.1_x:y-z", "\"just a string\"", 4_000, JobState.DEAD, 1, 1,
                new Backoff.Schedule(List.of(Duration.seconds(15), Duration.minutes(3))), null, null, false,
                Delivery.PULL, 2_000, 6_000L, null, List.of());
        Job broadcast = new Job(topic, "opts", "[1,\"two\",{\"3\":null},true,-0.0]", base.runAt(), JobState.DEAD, 3,
                7, null, new Callback("https://example.test/hook", Map.of("X-Token", "abc", "X-Other", "d e")),
                1_234L, true, Delivery.PUSH, 1_000, 5_000L, "gave up: 410", base.history());

        archive.write(entries(broadcast, schedule));

        assertThat(archive.deadLetter(broadcast.ref()).orElseThrow().job()).isEqualTo(broadcast);
        assertThat(archive.deadLetter(schedule.ref()).orElseThrow().job()).isEqualTo(schedule);
        assertThat(archive.find(schedule.ref())).contains(schedule);
    }

    /** Several archivers may hold the same outbox entries (issue 12 #7) and write them at the same moment. */
    @Test
    void archiversWritingTheSameEntriesAtOnceLeaveOneDeadLetterEach() throws Exception {
        List<OutboxEntry> batch = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            batch.add(entry(deadJob(topic, "race" + i, 1_000 + i, 10_000 + i)));
        }
        JobArchive other = secondInstance();

        List<Boolean> written = atOnce(8, n -> {
            (n % 2 == 0 ? archive : other).write(batch);
            return true;
        });

        assertThat(written).containsOnly(true);
        assertThat(ids(archive.deadLetters(DeadLetterQuery.topic(topic))))
                .containsExactly("race4", "race3", "race2", "race1", "race0");
    }

    // ------------------------------------------------------------------ lives of an id

    @Test
    void eachLifeOfAnIdIsItsOwnDeadLetterAndTheNewestIsTheJobs() {
        Job first = deadJob(topic, "a", 1_000, 5_000);
        Job second = deadJob(topic, "a", 9_000, 12_000);
        archive.write(List.of(entry(second))); // the newest is the latest death, not the latest write
        archive.write(List.of(entry(first)));

        List<DeadLetter> letters = archive.deadLetters(DeadLetterQuery.topic(topic)).items();

        assertThat(letters).extracting(DeadLetter::key)
                .containsExactly(topic + "/a/9000", topic + "/a/1000");
        assertThat(archive.deadLetter(new JobRef(topic, "a"))).hasValueSatisfying(l -> {
            assertThat(l.key()).isEqualTo(DeadLetter.keyOf(second));
            assertThat(l.deadAt()).isEqualTo(12_000);
        });
        assertThat(archive.deadLetter(DeadLetter.keyOf(first)).orElseThrow().job()).isEqualTo(first);
        assertThat(archive.find(new JobRef(topic, "a"))).contains(second);
    }

    // ------------------------------------------------------------------ find

    @Test
    void findAnswersTheMostRecentArchivedRecordOfAJob() {
        long now = System.currentTimeMillis();
        Job diedFirst = deadJob(topic, "dead-then-done", now - 3_000, now - 2_000);
        Job doneLater = succeededJob(topic, "dead-then-done", now - 1_500, now - 1_000);
        Job doneFirst = succeededJob(topic, "done-then-dead", now - 3_000, now - 2_000);
        Job diedLater = deadJob(topic, "done-then-dead", now - 1_500, now - 1_000);
        Job onlyDone = succeededJob(topic, "only-done", now - 1_500, now - 1_000);

        archive.write(entries(doneLater, diedFirst, diedLater, doneFirst, onlyDone));
        archive.write(entries(onlyDone, doneLater)); // succeeded jobs are written idempotently too

        assertThat(archive.find(doneLater.ref())).contains(doneLater);
        assertThat(archive.find(diedLater.ref())).contains(diedLater);
        assertThat(archive.find(onlyDone.ref())).contains(onlyDone);
        assertThat(archive.find(new JobRef(topic, "never-archived"))).isEmpty();
        // The dead letter of a job is its newest death, whatever came after; a succeeded job is no dead letter.
        assertThat(archive.deadLetter(doneLater.ref()).orElseThrow().job()).isEqualTo(diedFirst);
        assertThat(archive.deadLetter(onlyDone.ref())).isEmpty();
        assertThat(archive.deadLetter(DeadLetter.keyOf(onlyDone))).isEmpty();
        assertThat(ids(archive.deadLetters(DeadLetterQuery.topic(topic))))
                .containsExactlyInAnyOrder("dead-then-done", "done-then-dead");
    }

    @Test
    void unknownJobsAndKeysAreEmptyAnswers() {
        assertThat(archive.find(new JobRef(topic, "x"))).isEmpty();
        assertThat(archive.deadLetter(new JobRef(topic, "x"))).isEmpty();
        assertThat(archive.deadLetter(topic + "/x/1000")).isEmpty();
        assertThat(archive.deadLetters(DeadLetterQuery.topic(topic)).items()).isEmpty();
        assertThat(archive.deadLetters(DeadLetterQuery.topic(topic)).hasNext()).isFalse();
    }

    // ------------------------------------------------------------------ replays

    @Test
    void aReplayIsRecordedOnlyAgainstTheExpectedCount() {
        Job job = deadJob(topic, "a", 1_000, 5_000);
        archive.write(List.of(entry(job)));
        String key = DeadLetter.keyOf(job);
        DeadLetter.Replay first = new DeadLetter.Replay(1, 6_000, "a:1000:r1", "k1");
        DeadLetter.Replay second = new DeadLetter.Replay(2, 7_000, "a:1000:r2", null);

        assertThat(archive.recordReplay(key, 0, first)).isTrue();
        assertThat(archive.recordReplay(key, 0, new DeadLetter.Replay(1, 6_001, "a:1000:r1", "k2"))).isFalse();
        assertThat(archive.recordReplay(key, 2, second)).isFalse();
        assertThat(archive.recordReplay(key, 1, second)).isTrue();
        assertThat(archive.recordReplay(topic + "/nope/1000", 0, first)).isFalse();

        DeadLetter letter = archive.deadLetter(key).orElseThrow();
        assertThat(letter.replayCount()).isEqualTo(2);
        assertThat(letter.replays()).containsExactly(first, second);
        assertThat(letter.lastReplay()).isEqualTo(second);
        assertThat(archive.deadLetter(job.ref())).contains(letter);
        assertThat(archive.deadLetters(DeadLetterQuery.topic(topic)).items()).containsExactly(letter);
        assertThat(letter.job()).as("a replay changes nothing of the dead job").isEqualTo(job);
    }

    /** Operators replaying one letter at once, through several service instances, record exactly one replay. */
    @Test
    void replaysRecordedAtOnceAgainstTheSameCountRecordOne() throws Exception {
        Job job = deadJob(topic, "a", 1_000, 5_000);
        archive.write(List.of(entry(job)));
        String key = DeadLetter.keyOf(job);
        JobArchive other = secondInstance();

        List<Boolean> recorded = atOnce(8, n -> (n % 2 == 0 ? archive : other)
                .recordReplay(key, 0, new DeadLetter.Replay(1, 6_000 + n, "a:1000:r1", "k" + n)));

        assertThat(recorded).containsOnlyOnce(true);
        int winner = recorded.indexOf(true);
        DeadLetter letter = archive.deadLetter(key).orElseThrow();
        assertThat(letter.replayCount()).isEqualTo(1);
        assertThat(letter.replays()).containsExactly(new DeadLetter.Replay(1, 6_000 + winner, "a:1000:r1", "k" + winner));
    }

    /** An archiver still holding the entry writes it again after an operator replayed the letter. */
    @Test
    void rewritingAnEntryKeepsItsReplays() {
        Job job = deadJob(topic, "a", 1_000, 5_000);
        archive.write(List.of(entry(job)));
        String key = DeadLetter.keyOf(job);
        DeadLetter.Replay replay = new DeadLetter.Replay(1, 6_000, "a:1000:r1", null);
        assertThat(archive.recordReplay(key, 0, replay)).isTrue();

        archive.write(List.of(entry(job)));
        secondInstance().write(entries(job, deadJob(topic, "b", 1_000, 5_000)));

        DeadLetter letter = archive.deadLetter(key).orElseThrow();
        assertThat(letter.replayCount()).isEqualTo(1);
        assertThat(letter.replays()).containsExactly(replay);
        assertThat(ids(archive.deadLetters(DeadLetterQuery.topic(topic).withReplayed(true)))).containsExactly("a");
        assertThat(ids(archive.deadLetters(DeadLetterQuery.topic(topic).withReplayed(false)))).containsExactly("b");
        assertThat(archive.recordReplay(key, 0, new DeadLetter.Replay(1, 7_000, "a:1000:r1", null))).isFalse();
    }

    // ------------------------------------------------------------------ listings

    /**
     * Keys are compared in the archive's own order of strings (binary on MongoDB; a SQL archive's collation), which
     * need only be the same for sorting and for cursors; the ids here are ordered alike by any collation.
     */
    @Test
    void listingIsNewestFirstByDeadAtThenKey() {
        List<Job> jobs = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            jobs.add(deadJob(topic, "j" + i, 1_000 + i, 10_000 + i * 1_000));
        }
        for (String id : List.of("tie-b", "tie-a", "tie-c")) { // same deadAt as j2; the key breaks the tie
            jobs.add(deadJob(topic, id, 1_000, 12_000));
        }
        archive.write(entries(jobs.toArray(Job[]::new)));

        List<DeadLetter> letters = archive.deadLetters(DeadLetterQuery.topic(topic)).items();

        assertThat(ids(letters)).containsExactly("j4", "j3", "tie-c", "tie-b", "tie-a", "j2", "j1", "j0");
        assertThat(letters).extracting(DeadLetter::deadAt)
                .containsExactly(14_000L, 13_000L, 12_000L, 12_000L, 12_000L, 12_000L, 11_000L, 10_000L);
    }

    @Test
    void listingFiltersByTopicTimeAndReplayed() {
        String other = StoreFixtures.newTopic();
        List<Job> jobs = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            jobs.add(deadJob(topic, "j" + i, 1_000 + i, 10_000 + i * 1_000));
        }
        jobs.add(deadJob(other, "x", 1_000, 12_000));
        archive.write(entries(jobs.toArray(Job[]::new)));
        archive.recordReplay(topic + "/j4/1004", 0, new DeadLetter.Replay(1, 20_000, "j4:1004:r1", null));
        archive.recordReplay(topic + "/j1/1001", 0, new DeadLetter.Replay(1, 20_000, "j1:1001:r1", null));

        assertThat(ids(archive.deadLetters(DeadLetterQuery.topic(topic))))
                .containsExactly("j4", "j3", "j2", "j1", "j0");
        assertThat(ids(archive.deadLetters(DeadLetterQuery.topic(other)))).containsExactly("x");
        // from is inclusive, to exclusive, both to the millisecond
        assertThat(ids(archive.deadLetters(query(topic, 11_000L, 13_000L, null)))).containsExactly("j2", "j1");
        assertThat(ids(archive.deadLetters(query(topic, 11_001L, 12_999L, null)))).containsExactly("j2");
        assertThat(ids(archive.deadLetters(query(topic, 13_000L, null, null)))).containsExactly("j4", "j3");
        assertThat(ids(archive.deadLetters(query(topic, null, 11_000L, null)))).containsExactly("j0");
        assertThat(ids(archive.deadLetters(query(topic, 12_000L, 12_000L, null)))).isEmpty();
        assertThat(ids(archive.deadLetters(query(topic, null, null, false)))).containsExactly("j3", "j2", "j0");
        assertThat(ids(archive.deadLetters(query(topic, null, null, true)))).containsExactly("j4", "j1");
        assertThat(ids(archive.deadLetters(query(topic, 10_500L, 13_500L, true)))).containsExactly("j1");
        assertThat(ids(archive.deadLetters(query(topic, 10_500L, 13_500L, false)))).containsExactly("j3", "j2");
    }

    @Test
    void withoutATopicTheListingCoversEveryTopic() {
        // A window of time no other test's dead letters fall in.
        long base = 1_000_000_000_000L + ThreadLocalRandom.current().nextLong(100_000_000_000L);
        String other = StoreFixtures.newTopic();
        archive.write(entries(deadJob(topic, "a", 1_000, base + 1), deadJob(other, "b", 1_000, base + 2),
                deadJob(topic, "c", 1_000, base + 3), deadJob(other, "outside", 1_000, base + 10)));

        Page<DeadLetter> page = archive.deadLetters(query(null, base, base + 10, null));

        assertThat(page.items()).extracting(DeadLetter::ref)
                .containsExactly(new JobRef(topic, "c"), new JobRef(other, "b"), new JobRef(topic, "a"));
        assertThat(page.hasNext()).isFalse();
    }

    @Test
    void pagesHoldAtMostTheLimitAndTheLastOneHasNoCursor() {
        List<Job> jobs = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            jobs.add(deadJob(topic, "j" + i, 1_000 + i, 10_000 + i * 1_000));
        }
        archive.write(entries(jobs.toArray(Job[]::new)));

        Page<DeadLetter> first = archive.deadLetters(DeadLetterQuery.topic(topic).withLimit(2));
        assertThat(ids(first)).containsExactly("j4", "j3");
        assertThat(first.hasNext()).isTrue();
        Page<DeadLetter> second = archive.deadLetters(DeadLetterQuery.topic(topic).withLimit(2)
                .withCursor(first.nextCursor()));
        assertThat(ids(second)).containsExactly("j2", "j1");
        assertThat(second.hasNext()).isTrue();
        Page<DeadLetter> last = archive.deadLetters(DeadLetterQuery.topic(topic).withLimit(2)
                .withCursor(second.nextCursor()));
        assertThat(ids(last)).containsExactly("j0");
        assertThat(last.nextCursor()).isNull();

        // A page that takes exactly what is left is the last one: a bulk replay relies on it to say "no more".
        assertThat(archive.deadLetters(DeadLetterQuery.topic(topic).withLimit(5)).nextCursor()).isNull();
        assertThat(archive.deadLetters(DeadLetterQuery.topic(topic).withLimit(4)).hasNext()).isTrue();
        assertThat(archive.deadLetters(DeadLetterQuery.topic(topic).withLimit(3).withCursor(first.nextCursor()))
                .nextCursor()).isNull();
        assertThat(ids(archive.deadLetters(DeadLetterQuery.topic(topic).withLimit(1)))).containsExactly("j4");
    }

    @Test
    void pagesOfAFilteredListingWalkExactlyWhatItMatches() {
        List<Job> jobs = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            jobs.add(deadJob(topic, "j" + i, 1_000 + i, 10_000 + (i / 3) * 1_000)); // threes share a deadAt
        }
        archive.write(entries(jobs.toArray(Job[]::new)));
        for (int i = 0; i < 12; i += 4) {
            archive.recordReplay(topic + "/j" + i + "/" + (1_000 + i), 0, new DeadLetter.Replay(1, 20_000, "r", null));
        }
        DeadLetterQuery filter = query(topic, 10_000L, 13_000L, false);
        List<String> unpaged = ids(archive.deadLetters(filter));

        assertThat(unpaged).hasSize(6).doesNotContain("j0", "j4", "j8", "j9", "j10", "j11");
        for (int limit = 1; limit <= 3; limit++) {
            assertThat(walk(filter.withLimit(limit))).as("pages of %d", limit).containsExactlyElementsOf(unpaged);
        }
    }

    /**
     * A cursor is a position, not an offset: dead letters arriving (newer ones, and ones dying at exactly the
     * boundary's time) or leaving (purged, the cursor's own letter among them) between two pages neither shift nor
     * repeat items.
     */
    @Test
    void pagesStayStableWhileDeadLettersArriveAndLeave() {
        List<Job> jobs = new ArrayList<>();
        for (int i = 0; i < 25; i++) {
            // Pairs share a deadAt, so the cursor's tie-break on the key matters.
            jobs.add(deadJob(topic, "old" + i, 1_000 + i, 100_000 + (i / 2) * 1_000));
        }
        archive.write(entries(jobs.toArray(Job[]::new)));

        DeadLetterQuery query = DeadLetterQuery.topic(topic).withLimit(7);
        Page<DeadLetter> page = archive.deadLetters(query);
        List<String> seen = new ArrayList<>(ids(page));
        int turn = 0;
        while (page.hasNext()) {
            DeadLetter last = page.items().get(page.items().size() - 1);
            // Newer than everything (before the cursor: never shown); at the boundary's deadAt with a key above it
            // (before the cursor: never shown) and below it (after the cursor: shown once).
            archive.write(entries(deadJob(topic, "new" + turn, 50_000 + turn, 500_000 + turn),
                    deadJob(topic, "tie" + turn, 70_000 + turn, last.deadAt()),
                    // counting down, so that it sorts below an earlier one that may be the cursor
                    deadJob(topic, "a-low" + (9 - turn), 70_000 + turn, last.deadAt())));
            // The cursor's own letter leaves, and (once) the oldest letter, not seen yet.
            assertThat(archive.purgeDeadLetters(last.ref())).isEqualTo(1);
            if (turn == 0) {
                assertThat(archive.purgeDeadLetters(new JobRef(topic, "old0"))).isEqualTo(1);
            }
            turn++;
            page = archive.deadLetters(query.withCursor(page.nextCursor()));
            seen.addAll(ids(page));
        }

        assertThat(turn).isBetween(3, 9);
        assertThat(seen).doesNotHaveDuplicates().noneMatch(id -> id.startsWith("new") || id.startsWith("tie"))
                .doesNotContain("old0");
        assertThat(seen.stream().filter(id -> id.startsWith("old")).toList())
                .hasSize(24);
        assertThat(seen.stream().filter(id -> id.startsWith("a-low")).toList()).hasSize(turn);
    }

    /** A bulk replay that stops part-way through a page continues after any letter it took, not only a page's last. */
    @Test
    void aCursorNamingAnyLetterContinuesRightAfterIt() {
        List<Job> jobs = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            jobs.add(deadJob(topic, "j" + i, 1_000 + i, 10_000 + (i / 2) * 1_000));
        }
        archive.write(entries(jobs.toArray(Job[]::new)));
        List<DeadLetter> all = archive.deadLetters(DeadLetterQuery.topic(topic)).items();

        for (int i = 0; i < all.size(); i++) {
            Page<DeadLetter> after = archive.deadLetters(DeadLetterQuery.topic(topic)
                    .withCursor(DeadLetterCursor.after(all.get(i))));
            assertThat(after.items()).as("after %s", all.get(i).key()).isEqualTo(all.subList(i + 1, all.size()));
        }
    }

    @Test
    void aCursorThatWasNotHandedOutIsRefused() {
        assertThatThrownBy(() -> archive.deadLetters(DeadLetterQuery.topic(topic).withCursor("not a cursor")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("nextCursor");
    }

    // ------------------------------------------------------------------ purge

    @Test
    void purgingAJobRemovesEveryLifeOfItsIdAndNothingElse() {
        long now = System.currentTimeMillis();
        Job first = deadJob(topic, "j0", 1_000, 5_000);
        Job second = deadJob(topic, "j0", 9_000, 12_000);
        Job succeeded = succeededJob(topic, "j1", now - 2_000, now - 1_000);
        Job deadAfterSuccess = deadJob(topic, "j1", now - 500, now);
        archive.write(entries(first, second, deadJob(topic, "j2", 1_000, 6_000), deadJob(topic, "j00", 1_000, 7_000),
                succeeded, deadAfterSuccess));

        assertThat(archive.purgeDeadLetters(new JobRef(topic, "j0"))).isEqualTo(2);

        assertThat(archive.deadLetter(new JobRef(topic, "j0"))).isEmpty();
        assertThat(archive.deadLetter(DeadLetter.keyOf(first))).isEmpty();
        assertThat(archive.deadLetter(DeadLetter.keyOf(second))).isEmpty();
        assertThat(archive.find(new JobRef(topic, "j0"))).isEmpty();
        assertThat(ids(archive.deadLetters(DeadLetterQuery.topic(topic)))).containsExactly("j1", "j00", "j2");
        assertThat(archive.purgeDeadLetters(new JobRef(topic, "j0"))).isZero();
        assertThat(archive.purgeDeadLetters(new JobRef(topic, "never-died"))).isZero();

        // A purge removes dead letters only: the job's archived success is its most recent record again.
        assertThat(archive.purgeDeadLetters(new JobRef(topic, "j1"))).isEqualTo(1);
        assertThat(archive.find(new JobRef(topic, "j1"))).contains(succeeded);
        assertThat(archive.deadLetter(new JobRef(topic, "j1"))).isEmpty();
    }

    @Test
    void purgingByFilterRemovesExactlyWhatTheFilterMatches() {
        String other = StoreFixtures.newTopic();
        List<Job> jobs = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            jobs.add(deadJob(topic, "j" + i, 1_000 + i, 10_000 + i * 1_000));
            jobs.add(deadJob(other, "j" + i, 1_000 + i, 10_000 + i * 1_000));
        }
        archive.write(entries(jobs.toArray(Job[]::new)));
        archive.recordReplay(topic + "/j4/1004", 0, new DeadLetter.Replay(1, 20_000, "j4:1004:r1", null));

        // The limit and the cursor of the query are ignored: a purge takes every match.
        assertThat(archive.purgeDeadLetters(query(topic, null, 12_000L, null).withLimit(1)
                .withCursor(DeadLetterCursor.encode(11_000, topic + "/j1/1001")))).isEqualTo(2);
        assertThat(ids(archive.deadLetters(DeadLetterQuery.topic(topic)))).containsExactly("j5", "j4", "j3", "j2");
        assertThat(archive.purgeDeadLetters(query(topic, null, null, true))).isEqualTo(1);
        assertThat(archive.purgeDeadLetters(query(topic, 15_000L, null, false))).isEqualTo(1);
        assertThat(ids(archive.deadLetters(DeadLetterQuery.topic(topic)))).containsExactly("j3", "j2");
        assertThat(archive.purgeDeadLetters(query(topic, 12_000L, 13_000L, null))).isEqualTo(1);
        assertThat(ids(archive.deadLetters(DeadLetterQuery.topic(topic)))).containsExactly("j3");
        assertThat(archive.purgeDeadLetters(query(topic, null, 12_000L, null))).as("already purged").isZero();
        assertThat(archive.purgeDeadLetters(DeadLetterQuery.topic(topic))).isEqualTo(1);

        assertThat(archive.deadLetters(DeadLetterQuery.topic(topic)).items()).isEmpty();
        assertThat(archive.deadLetters(DeadLetterQuery.topic(other)).items()).hasSize(6);
    }

    /**
     * Issue 12 #7: an archiver that read an entry before the purge (or wrote it and died before deleting it from the
     * outbox) writes it again after the purge. The write succeeds, the rest of its batch is archived, and the purged
     * letter stays purged: not listed, shown, found, replayed, nor purged again.
     */
    @Test
    void aPurgedDeadLetterIsNotWrittenBackByALaterWriteOfItsEntry() {
        long now = System.currentTimeMillis();
        Job byRef = deadJob(topic, "by-ref", 1_000, 5_000);
        Job byFilter = deadJob(topic, "by-filter", 1_000, 6_000);
        Job replayed = deadJob(topic, "replayed", 1_000, 7_000);
        archive.write(entries(byRef, byFilter, replayed));
        assertThat(archive.recordReplay(DeadLetter.keyOf(replayed), 0,
                new DeadLetter.Replay(1, 8_000, "replayed:1000:r1", null))).isTrue();
        List<OutboxEntry> heldByAnotherArchiver = entries(byRef, byFilter, replayed);

        assertThat(archive.purgeDeadLetters(byRef.ref())).isEqualTo(1);
        assertThat(archive.purgeDeadLetters(query(topic, 5_500L, null, null))).isEqualTo(2);
        Job fresh = deadJob(topic, "fresh", 1_000, 9_000);
        Job succeeded = succeededJob(topic, "done", now - 1_000, now);
        List<OutboxEntry> late = new ArrayList<>(heldByAnotherArchiver);
        late.add(entry(fresh));
        late.add(entry(succeeded));
        secondInstance().write(late);
        archive.write(heldByAnotherArchiver);

        assertThat(ids(archive.deadLetters(DeadLetterQuery.topic(topic)))).containsExactly("fresh");
        assertThat(archive.find(succeeded.ref())).contains(succeeded);
        for (Job purged : List.of(byRef, byFilter, replayed)) {
            String key = DeadLetter.keyOf(purged);
            assertThat(archive.deadLetter(key)).as(key).isEmpty();
            assertThat(archive.deadLetter(purged.ref())).as(key).isEmpty();
            assertThat(archive.find(purged.ref())).as(key).isEmpty();
            assertThat(archive.recordReplay(key, 0, new DeadLetter.Replay(1, 9_000, "x", null))).as(key).isFalse();
            assertThat(archive.recordReplay(key, 1, new DeadLetter.Replay(2, 9_000, "x", null))).as(key).isFalse();
        }
        assertThat(archive.purgeDeadLetters(DeadLetterQuery.topic(topic).withReplayed(true))).isZero();
        assertThat(archive.purgeDeadLetters(byRef.ref())).isZero();
    }

    /**
     * The same, with the late write, the purge and a replay landing at the same moment through three instances: in
     * whatever order the backend takes them, the purged letter does not come back.
     */
    @Test
    void aWriteRacingAPurgeNeverBringsTheLetterBack() throws Exception {
        JobArchive writer = secondInstance();
        JobArchive replayer = secondInstance();
        for (int round = 0; round < 20; round++) {
            Job job = deadJob(topic, "race" + round, 1_000, 5_000 + round);
            String key = DeadLetter.keyOf(job);
            archive.write(List.of(entry(job)));

            List<Long> results = atOnce(3, n -> switch (n) {
                case 0 -> archive.purgeDeadLetters(job.ref());
                case 1 -> {
                    writer.write(List.of(entry(job)));
                    yield 0L;
                }
                default -> replayer.recordReplay(key, 0, new DeadLetter.Replay(1, 6_000, "r", null)) ? 1L : 0L;
            });

            assertThat(results.get(0)).as("round %d: purged", round).isEqualTo(1);
            assertThat(archive.deadLetter(key)).as("round %d", round).isEmpty();
            writer.write(List.of(entry(job)));
            assertThat(archive.deadLetter(key)).as("round %d, written again", round).isEmpty();
        }
        assertThat(archive.deadLetters(DeadLetterQuery.topic(topic)).items()).isEmpty();
    }

    /** A tombstone stands for one life of the id: a later death of the same id is a new dead letter. */
    @Test
    void aLaterLifeOfAPurgedIdIsArchived() {
        archive.write(List.of(entry(deadJob(topic, "again", 1_000, 5_000))));
        archive.purgeDeadLetters(new JobRef(topic, "again"));

        Job later = deadJob(topic, "again", 9_000, 12_000);
        archive.write(List.of(entry(later)));

        assertThat(archive.deadLetter(new JobRef(topic, "again"))).hasValueSatisfying(l -> {
            assertThat(l.key()).isEqualTo(topic + "/again/9000");
            assertThat(l.job()).isEqualTo(later);
        });
        assertThat(archive.deadLetter(topic + "/again/1000")).isEmpty();
        assertThat(ids(archive.deadLetters(DeadLetterQuery.topic(topic)))).containsExactly("again");
    }

    // ------------------------------------------------------------------ retention

    @Test
    void succeededJobsAreKeptForTheirRetentionAfterTheyFinishedAndDeadLettersUntilPurged() {
        java.time.Duration retention = java.time.Duration.ofHours(1);
        try (JobArchive kept = newArchiveWithRetention(retention, java.time.Duration.ofHours(2))) {
            long finishedAt = System.currentTimeMillis();
            Job done = succeededJob(topic, "done", finishedAt - 1_000, finishedAt);
            Job later = succeededJob(topic, "later", finishedAt - 1_000, finishedAt + 600_000);
            Job dead = deadJob(topic, "dead", 1_000, 5_000);
            kept.write(entries(done, later, dead));

            expire(kept, finishedAt + retention.toMillis() - 60_000);
            assertThat(kept.find(done.ref())).contains(done);

            expire(kept, finishedAt + retention.toMillis() + 60_000);
            assertThat(kept.find(done.ref())).isEmpty();
            assertThat(kept.find(later.ref())).as("finished 10 minutes later, so kept 10 minutes longer")
                    .contains(later);
            assertThat(kept.deadLetter(dead.ref())).as("dead letters are kept until purged, however old")
                    .hasValueSatisfying(l -> assertThat(l.job()).isEqualTo(dead));
            assertThat(kept.find(dead.ref())).contains(dead);
        }
    }

    /**
     * A tombstone keeps a purged letter from coming back for the archive's tombstone retention, counted from the
     * purge; after that the key is free, and an entry still around then would archive the letter again.
     */
    @Test
    void aTombstoneGuardsItsKeyForItsRetentionAfterThePurge() {
        java.time.Duration retention = java.time.Duration.ofHours(2);
        try (JobArchive guarded = newArchiveWithRetention(java.time.Duration.ofDays(1), retention)) {
            Job job = deadJob(topic, "t", 1_000, 5_000);
            String key = DeadLetter.keyOf(job);
            guarded.write(List.of(entry(job)));
            guarded.recordReplay(key, 0, new DeadLetter.Replay(1, 6_000, "t:1000:r1", null));
            long before = System.currentTimeMillis();
            assertThat(guarded.purgeDeadLetters(job.ref())).isEqualTo(1);
            long after = System.currentTimeMillis();

            expire(guarded, before + retention.toMillis() - 60_000);
            guarded.write(List.of(entry(job)));
            assertThat(guarded.deadLetter(key)).isEmpty();

            expire(guarded, after + retention.toMillis() + 60_000);
            guarded.write(List.of(entry(job)));
            assertThat(guarded.deadLetter(key)).hasValueSatisfying(l -> {
                assertThat(l.job()).isEqualTo(job);
                assertThat(l.replayCount()).as("a new letter, not the purged one").isZero();
            });
        }
    }

    // ------------------------------------------------------------------ dashboard filters, counts, failure groups

    private static final String HOOK_A = "http://api.example.com/hooks/orders"; // host api.example.com
    private static final String HOOK_B = "https://api.example.com:8443/hooks"; // host api.example.com:8443
    private static final String HOOK_C = "http://billing.internal:9000/cb";    // host billing.internal:9000

    @Test
    void theNewFiltersMatchTheHostTheLastAttemptsStatusAndTheIdPrefix() {
        archive.write(entries(
                failedJob(topic, "order-1", 1_000, 10_000, HOOK_A, 503, "HTTP 503 from callback", "{}"),
                failedJob(topic, "order-2", 1_000, 11_000, HOOK_B, 503, "HTTP 503 from callback", "{}"),
                failedJob(topic, "order.3", 1_000, 12_000, HOOK_A, 500, "HTTP 500 from callback", "{}"),
                failedJob(topic, "orderX3", 1_000, 13_000, HOOK_A, null, "connection refused", "{}"),
                failedJob(topic, "Order-4", 1_000, 14_000, HOOK_C, 410, "HTTP 410 from callback", "{}")));

        assertThat(ids(archive.deadLetters(DeadLetterQuery.topic(topic).withHost("api.example.com"))))
                .containsExactly("orderX3", "order.3", "order-1");
        assertThat(ids(archive.deadLetters(DeadLetterQuery.topic(topic).withHost("api.example.com:8443"))))
                .containsExactly("order-2");
        assertThat(ids(archive.deadLetters(DeadLetterQuery.topic(topic).withHost("api.example"))))
                .as("a host is matched whole").isEmpty();
        assertThat(ids(archive.deadLetters(DeadLetterQuery.topic(topic).withHttpStatus(503))))
                .containsExactly("order-2", "order-1");
        assertThat(ids(archive.deadLetters(DeadLetterQuery.topic(topic).withHttpStatus(410))))
                .containsExactly("Order-4");
        assertThat(ids(archive.deadLetters(DeadLetterQuery.topic(topic).withHttpStatus(418))))
                .as("only the last attempt's status counts").isEmpty();
        assertThat(ids(archive.deadLetters(DeadLetterQuery.topic(topic).withIdPrefix("order-"))))
                .containsExactly("order-2", "order-1");
        assertThat(ids(archive.deadLetters(DeadLetterQuery.topic(topic).withIdPrefix("order"))))
                .containsExactly("orderX3", "order.3", "order-2", "order-1");
        assertThat(ids(archive.deadLetters(DeadLetterQuery.topic(topic).withIdPrefix("Order"))))
                .as("case-sensitive").containsExactly("Order-4");
        assertThat(ids(archive.deadLetters(DeadLetterQuery.topic(topic).withIdPrefix("order.3"))))
                .containsExactly("order.3");
        // Characters that mean something to a pattern language mean only themselves in a prefix.
        assertThat(ids(archive.deadLetters(DeadLetterQuery.topic(topic).withIdPrefix("order.")))).containsExactly("order.3");
        assertThat(ids(archive.deadLetters(DeadLetterQuery.topic(topic).withIdPrefix("order_")))).isEmpty();
        assertThat(ids(archive.deadLetters(DeadLetterQuery.topic(topic).withIdPrefix("order%")))).isEmpty();
        assertThat(ids(archive.deadLetters(DeadLetterQuery.topic(topic).withIdPrefix("order*")))).isEmpty();
        assertThat(ids(archive.deadLetters(DeadLetterQuery.topic(topic).withIdPrefix("order-1-")))).isEmpty();
    }

    @Test
    void thePayloadFilterMatchesTheFieldAtADotPathAsAStringANumberOrABoolean() {
        archive.write(entries(
                failedJob(topic, "num", 1_000, 10_000, HOOK_A, 503, "e",
                        "{\"order\":{\"id\":42,\"lines\":[1,2]},\"customer\":\"c-1\",\"vip\":true}"),
                failedJob(topic, "str", 1_000, 11_000, HOOK_A, 503, "e",
                        "{\"customer\":\"c-2\",\"order\":{\"id\":\"42\"},\"vip\":false}"),
                failedJob(topic, "other", 1_000, 12_000, HOOK_A, 503, "e",
                        "{\"order\":{\"id\":43},\"customer\":\"c-1\",\"vip\":\"true\"}"),
                failedJob(topic, "decimal", 1_000, 13_000, HOOK_A, 503, "e", "{\"order\":{\"id\":42.0}}"),
                failedJob(topic, "deeper", 1_000, 14_000, HOOK_A, 503, "e", "{\"order\":{\"id\":{\"v\":42}}}"),
                failedJob(topic, "quoted", 1_000, 15_000, HOOK_A, 503, "e", "{\"note\":\"say \\\"hi\\\" \\\\ {}\"}"),
                // payloads that are not JSON objects, and values that are not the one at the path, never match
                failedJob(topic, "array", 1_000, 16_000, HOOK_A, 503, "e", "[{\"order\":{\"id\":42}}]"),
                failedJob(topic, "scalar", 1_000, 17_000, HOOK_A, 503, "e", "42"),
                failedJob(topic, "string", 1_000, 18_000, HOOK_A, 503, "e", "\"42\""),
                failedJob(topic, "dotted-key", 1_000, 19_000, HOOK_A, 503, "e", "{\"order.id\":42}"),
                failedJob(topic, "in-array", 1_000, 20_000, HOOK_A, 503, "e", "{\"order\":{\"id\":[42]}}"),
                failedJob(topic, "in-objects", 1_000, 21_000, HOOK_A, 503, "e", "{\"order\":[{\"id\":42}]}")));

        assertThat(ids(archive.deadLetters(payload("order.id", "42")))).containsExactly("decimal", "str", "num");
        assertThat(ids(archive.deadLetters(payload("order.id", "4.2e1"))))
                .as("the same number spelled otherwise; not the string \"42\"").containsExactly("decimal", "num");
        assertThat(ids(archive.deadLetters(payload("order.id", "43")))).containsExactly("other");
        assertThat(ids(archive.deadLetters(payload("customer", "c-1")))).containsExactly("other", "num");
        assertThat(ids(archive.deadLetters(payload("vip", "true")))).containsExactly("other", "num");
        assertThat(ids(archive.deadLetters(payload("vip", "false")))).containsExactly("str");
        assertThat(ids(archive.deadLetters(payload("order.id.v", "42")))).containsExactly("deeper");
        assertThat(ids(archive.deadLetters(payload("note", "say \"hi\" \\ {}")))).containsExactly("quoted");
        assertThat(ids(archive.deadLetters(payload("order", "42")))).isEmpty();
        assertThat(ids(archive.deadLetters(payload("order.lines", "1")))).isEmpty();
        assertThat(ids(archive.deadLetters(payload("customer", "c")))).as("a value is matched whole").isEmpty();
        assertThat(ids(archive.deadLetters(payload("missing.path", "42")))).isEmpty();
        assertThat(archive.countDeadLetters(payload("order.id", "42"))).isEqualTo(3);
        assertThat(archive.purgeDeadLetters(payload("order.id", "42"))).isEqualTo(3);
        assertThat(ids(archive.deadLetters(payload("order.id", "42")))).isEmpty();
        assertThat(archive.countDeadLetters(DeadLetterQuery.topic(topic))).isEqualTo(9);
    }

    private DeadLetterQuery payload(String field, String value) {
        return DeadLetterQuery.topic(topic).withPayload(field, value);
    }

    /** Every filter together narrows to their intersection, in listings, pages, counts and purges alike. */
    @Test
    void filtersCombineAndCountsMatchListings() {
        String other = StoreFixtures.newTopic();
        List<Job> jobs = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            String hook = i % 3 == 0 ? HOOK_B : HOOK_A;
            Integer status = i % 2 == 0 ? 503 : 500;
            String payload = "{\"customer\":{\"id\":" + (i % 4) + "}}";
            jobs.add(failedJob(topic, (i < 8 ? "pay-" : "ship-") + i, 1_000 + i, 10_000 + i * 1_000, hook, status,
                    "HTTP " + status + " from callback", payload));
            jobs.add(failedJob(other, "pay-" + i, 1_000 + i, 10_000 + i * 1_000, hook, status,
                    "HTTP " + status + " from callback", payload));
        }
        archive.write(entries(jobs.toArray(Job[]::new)));
        archive.recordReplay(topic + "/pay-2/1002", 0, new DeadLetter.Replay(1, 30_000, "pay-2:1002:r1", null));
        // topic, host api.example.com (i % 3 != 0), status 503 (even i), prefix pay- (i < 8), customer 2 (i % 4 == 2):
        // i = 2 alone (replayed); without the payload filter 2 and 4; without the prefix too 2, 4, 8 and 10
        DeadLetterQuery narrow = DeadLetterQuery.topic(topic).withHost("api.example.com").withHttpStatus(503)
                .withIdPrefix("pay-").withPayload("customer.id", "2");
        assertThat(ids(archive.deadLetters(narrow))).containsExactly("pay-2");
        assertThat(ids(archive.deadLetters(narrow.withReplayed(false)))).isEmpty();
        assertThat(ids(archive.deadLetters(narrow.withPayload(null, null)))).containsExactly("pay-4", "pay-2");
        assertThat(ids(archive.deadLetters(narrow.withPayload(null, null).withIdPrefix(null))))
                .containsExactly("ship-10", "ship-8", "pay-4", "pay-2");
        assertThat(ids(archive.deadLetters(new DeadLetterQuery(topic, 12_000L, 14_000L, null, 50, null,
                "api.example.com", 503, "pay-", null, null, null)))).containsExactly("pay-2");

        List<DeadLetterQuery> queries = List.of(DeadLetterQuery.topic(topic), DeadLetterQuery.topic(other), narrow,
                narrow.withPayload(null, null), DeadLetterQuery.topic(topic).withHost("api.example.com:8443"),
                DeadLetterQuery.topic(topic).withHttpStatus(500).withIdPrefix("ship-"),
                DeadLetterQuery.topic(topic).withPayload("customer.id", "1").withReplayed(false),
                DeadLetterQuery.topic(topic).withHost("nowhere.example.com"));
        for (DeadLetterQuery q : queries) {
            List<String> listed = walk(q.withLimit(2));
            assertThat(archive.countDeadLetters(q.withLimit(1).withCursor(DeadLetterCursor.encode(1, "x"))))
                    .as("count of %s (limit and cursor ignored)", q).isEqualTo(listed.size())
                    .isEqualTo(ids(archive.deadLetters(q)).size());
        }
        assertThat(archive.countDeadLetters(DeadLetterQuery.topic(topic))).isEqualTo(12);

        assertThat(archive.purgeDeadLetters(narrow.withPayload(null, null))).isEqualTo(2);
        assertThat(archive.countDeadLetters(DeadLetterQuery.topic(topic))).isEqualTo(10);
        assertThat(archive.countDeadLetters(DeadLetterQuery.topic(other))).as("other topic untouched").isEqualTo(12);
        assertThat(archive.purgeDeadLetters(DeadLetterQuery.topic(topic).withHttpStatus(500).withIdPrefix("ship-")))
                .isEqualTo(2);
        assertThat(ids(archive.deadLetters(DeadLetterQuery.topic(topic).withIdPrefix("ship-"))))
                .containsExactly("ship-10", "ship-8");
        assertThat(archive.purgeDeadLetters(DeadLetterQuery.topic(topic).withHost("api.example.com:8443")))
                .isEqualTo(3); // i = 0, 3, 6 (9 was purged as a status-500 ship letter)
        assertThat(ids(archive.deadLetters(DeadLetterQuery.topic(topic))))
                .containsExactly("ship-10", "ship-8", "pay-7", "pay-5", "pay-1");
    }

    /**
     * Letters that failed the same way at the same host group together although their error texts differ in numbers,
     * ids and times, and they died hours apart; another host, another status or another kind of error is another
     * group. Largest first, then the newest, then by signature id.
     */
    @Test
    void failureGroupsGroupBySignatureLargestFirstWithTheirTrendAndNewestExample() {
        long now = 100_000_000L; // the grouping's "now", in 1970 like every death here
        long hour = 3_600_000L;
        List<Job> a = List.of(
                failedJob(topic, "a1", 1, now - 2 * hour, HOOK_A, 503,
                        "order 1234 timed out after 1200 ms at 2026-11-24T01:02:03Z (request 7f3a9c21d4e5)", "{}"),
                failedJob(topic, "a2", 2, now - hour, HOOK_A, 503, // exactly an hour ago: in the last hour
                        "order 98 timed out after 30000 ms at 2026-11-23T11:12:13.456Z (request 0a1b2c3d4e5f6a7b)", "{}"),
                failedJob(topic, "a3", 3, now - 60_000, HOOK_A, 503,
                        "order 7 timed out after 5 ms at 2025-01-01T00:00:00Z (request deadbeef42)", "{}"),
                failedJob(topic, "a4", 4, now, HOOK_A, 503,
                        "order 555 timed out after 1 ms at 2026-11-24T01:02:03+01:00 (request 1234abcd5678)", "{}"));
        List<Job> b = List.of( // the same failure at another host
                failedJob(topic, "b1", 5, now - hour - 1, HOOK_B, 503,
                        "order 1 timed out after 2 ms at 2026-11-24T01:02:03Z (request 7f3a9c21d4e5)", "{}"),
                failedJob(topic, "b2", 6, now - 5 * hour, HOOK_B, 503,
                        "order 3 timed out after 4 ms at 2026-11-24T01:02:03Z (request 7f3a9c21d4e6)", "{}"));
        List<Job> c = List.of( // another status at the first host, dead after "now": no part of the last hour
                failedJob(topic, "c1", 7, now + 1_000, HOOK_A, 500,
                        "order 1 timed out after 2 ms at 2026-11-24T01:02:03Z (request 7f3a9c21d4e5)", "{}"));
        List<Job> d = List.of( // no HTTP answer at all
                failedJob(topic, "d1", 8, now - 3 * hour, HOOK_A, null, "connection refused: api.example.com/10.0.0.7:80", "{}"),
                failedJob(topic, "d2", 9, now - 2 * hour, HOOK_A, null, "connection refused: api.example.com/10.0.0.8:80", "{}"),
                failedJob(topic, "d3", 10, now - 4 * hour, HOOK_A, null, "connection refused: api.example.com/10.9.0.1:80", "{}"));
        List<Job> e = List.of( // as many as b, newer
                failedJob(topic, "e1", 11, now - 1_000, HOOK_C, 503, "HTTP 503 from callback", "{}"),
                failedJob(topic, "e2", 12, now - 6 * hour, HOOK_C, 503, "HTTP 503 from callback", "{}"));
        List<Job> f = List.of(failedJob(topic, "f1", 13, now - 7 * hour, HOOK_C, 500, "HTTP 500 from callback", "{}"));
        List<Job> g = List.of(failedJob(topic, "g1", 14, now - 7 * hour, HOOK_C, 502, "HTTP 502 from callback", "{}"));
        List<Job> all = new ArrayList<>();
        for (List<Job> group : List.of(a, b, c, d, e, f, g)) {
            all.addAll(group);
            assertThat(group.stream().map(FailureSignature::of).distinct()).as("the fixture's own grouping").hasSize(1);
        }
        archive.write(entries(all.toArray(Job[]::new)));
        // f and g tie on size and newest death: the signature id decides
        List<FailureSignature> tied = java.util.stream.Stream.of(f, g).map(x -> FailureSignature.of(x.get(0)))
                .sorted(java.util.Comparator.comparing(FailureSignature::id)).toList();

        List<FailureGroup> groups = archive.failureGroups(DeadLetterQuery.topic(topic), 10, now);

        assertThat(groups).extracting(FailureGroup::signature).containsExactly(signature(a), signature(d),
                signature(e), signature(b), signature(c), tied.get(0), tied.get(1));
        assertThat(groups).extracting(FailureGroup::count).containsExactly(4L, 3L, 2L, 2L, 1L, 1L, 1L);
        assertThat(groups).extracting(FailureGroup::lastHour).containsExactly(3L, 0L, 1L, 0L, 0L, 0L, 0L);
        FailureGroup groupA = groups.get(0);
        assertThat(groupA.firstDeadAt()).isEqualTo(now - 2 * hour);
        assertThat(groupA.lastDeadAt()).isEqualTo(now);
        assertThat(groupA.example()).as("the newest letter").isEqualTo(archive.deadLetter(DeadLetter.keyOf(a.get(3))).orElseThrow());
        assertThat(groupA.signature().kind()).isEqualTo("HTTP 503");
        assertThat(groupA.signature().host()).isEqualTo("api.example.com");
        assertThat(groups.get(1).example().job().id()).isEqualTo("d2");
        assertThat(groups.get(1).signature().kind()).isEqualTo("connect");
        assertThat(groups.get(3).firstDeadAt()).isEqualTo(now - 5 * hour);
        assertThat(groups.get(3).lastDeadAt()).isEqualTo(now - hour - 1);
        assertThat(groups.get(4).lastDeadAt()).isEqualTo(now + 1_000);
        assertThat(archive.countDeadLetters(DeadLetterQuery.topic(topic))).isEqualTo(all.size());

        // at most limit groups; filters narrow what is grouped
        assertThat(archive.failureGroups(DeadLetterQuery.topic(topic), 2, now)).extracting(FailureGroup::signature)
                .containsExactly(signature(a), signature(d));
        assertThat(archive.failureGroups(DeadLetterQuery.topic(topic).withHost("api.example.com"), 10, now))
                .extracting(FailureGroup::signature).containsExactly(signature(a), signature(d), signature(c));
        assertThat(archive.failureGroups(DeadLetterQuery.topic(topic).withHttpStatus(503), 10, now))
                .extracting(FailureGroup::count).containsExactly(4L, 2L, 2L);
        assertThat(archive.failureGroups(DeadLetterQuery.topic(topic).withIdPrefix("zz"), 10, now)).isEmpty();

        // a replayed newest letter: the group without replayed letters has the next newest as its example
        assertThat(archive.recordReplay(DeadLetter.keyOf(a.get(3)), 0, new DeadLetter.Replay(1, now, "a4:4:r1", null)))
                .isTrue();
        FailureGroup notReplayed = archive.failureGroups(DeadLetterQuery.topic(topic).withReplayed(false), 1, now).get(0);
        assertThat(notReplayed.signature()).isEqualTo(signature(a));
        assertThat(notReplayed.count()).isEqualTo(3);
        assertThat(notReplayed.lastHour()).isEqualTo(2);
        assertThat(notReplayed.example().job().id()).isEqualTo("a3");
    }

    /** The group filter lists, counts and purges exactly the letters of that signature. */
    @Test
    void theGroupFilterSelectsExactlyTheLettersOfASignature() {
        String other = StoreFixtures.newTopic();
        List<Job> jobs = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            jobs.add(failedJob(topic, "same-" + i, i, 10_000 + i * 1_000, HOOK_A, 503,
                    "upstream " + (i * 37) + " busy, retry after " + (i + 1) + "s", "{}"));
            jobs.add(failedJob(topic, "host-" + i, i, 10_500 + i * 1_000, HOOK_B, 503,
                    "upstream " + i + " busy, retry after 1s", "{}"));
            jobs.add(failedJob(other, "same-" + i, i, 10_000 + i * 1_000, HOOK_A, 503,
                    "upstream 1 busy, retry after 1s", "{}"));
        }
        archive.write(entries(jobs.toArray(Job[]::new)));
        String group = FailureSignature.of(jobs.get(0)).id();
        assertThat(FailureSignature.of(jobs.get(1)).id()).isNotEqualTo(group);
        assertThat(FailureSignature.of(jobs.get(2)).id()).isEqualTo(group);

        DeadLetterQuery byGroup = DeadLetterQuery.topic(topic).withGroup(group);
        assertThat(ids(archive.deadLetters(byGroup)))
                .containsExactly("same-5", "same-4", "same-3", "same-2", "same-1", "same-0");
        assertThat(walk(byGroup.withLimit(4))).hasSize(6);
        assertThat(archive.countDeadLetters(byGroup)).isEqualTo(6);
        assertThat(archive.countDeadLetters(new DeadLetterQuery(null, null, null, null, 1, null, null, null, null,
                null, null, group))).as("every topic").isGreaterThanOrEqualTo(12);
        assertThat(archive.deadLetters(DeadLetterQuery.topic(topic).withGroup("000000000000")).items()).isEmpty();

        assertThat(archive.purgeDeadLetters(byGroup)).isEqualTo(6);
        assertThat(ids(archive.deadLetters(DeadLetterQuery.topic(topic))))
                .containsExactly("host-5", "host-4", "host-3", "host-2", "host-1", "host-0");
        assertThat(archive.countDeadLetters(DeadLetterQuery.topic(other).withGroup(group))).isEqualTo(6);
        assertThat(archive.failureGroups(DeadLetterQuery.topic(topic), 10, 20_000)).singleElement()
                .satisfies(gr -> {
                    assertThat(gr.signature()).isEqualTo(FailureSignature.of(jobs.get(1)));
                    assertThat(gr.count()).isEqualTo(6);
                });
    }

    @Test
    void aBadGroupLimitIsRefused() {
        assertThatThrownBy(() -> archive.failureGroups(DeadLetterQuery.topic(topic), 0, 1_000))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("limit");
    }

    private static FailureSignature signature(List<Job> group) {
        return FailureSignature.of(group.get(0));
    }

    // ------------------------------------------------------------------ dead notices

    @Test
    void aDeadJobWithANoticeTargetIsWrittenWithAPendingNoticeDueAtItsDeath() {
        Callback target = new Callback("https://ops.example.test/dead", Map.of("X-Team", "billing"));
        Job noticed = deadJob(topic, "noticed", 1_000, 5_000).withOnDead(target);
        Job silent = deadJob(topic, "silent", 1_000, 5_000);
        archive.write(entries(noticed, silent));

        DeadLetter letter = archive.deadLetter(DeadLetter.keyOf(noticed)).orElseThrow();
        assertThat(letter.job().onDead()).isEqualTo(target);
        assertThat(letter.notice()).isEqualTo(DeadNotice.pending(5_000));
        assertThat(archive.deadLetter(DeadLetter.keyOf(silent)).orElseThrow().notice()).isNull();
        assertThat(dueNoticeIds(4_999)).isEmpty();
        assertThat(dueNoticeIds(5_000)).containsExactly("noticed");

        archive.write(entries(noticed)); // the archiver wrote it again after a crash: the notice is not reset
        String key = DeadLetter.keyOf(noticed);
        assertThat(archive.recordNotice(key, 0, letter.notice().claimed(65_000))).isTrue();
        archive.write(entries(noticed));
        assertThat(archive.deadLetter(key).orElseThrow().notice().attempts()).isEqualTo(1);
    }

    @Test
    void dueNoticesComeEarliestFirstUpToTheLimitAndLeaveSettledOnesOut() {
        archive.write(entries(
                deadJob(topic, "late", 1_000, 9_000).withOnDead(Callback.of("https://a.test/d")),
                deadJob(topic, "early", 1_000, 7_000).withOnDead(Callback.of("https://a.test/d")),
                deadJob(topic, "middle", 1_000, 8_000).withOnDead(Callback.of("https://a.test/d"))));
        assertThat(dueNoticeIds(10_000)).containsExactly("early", "middle", "late");
        assertThat(archive.dueNotices(10_000, 1000).stream().filter(l -> l.ref().topic().equals(topic)).limit(2)
                .map(l -> l.job().id())).containsExactly("early", "middle");

        String early = keyOf("early");
        DeadNotice claimed = archive.deadLetter(early).orElseThrow().notice().claimed(70_000);
        assertThat(archive.recordNotice(early, 0, claimed)).isTrue();
        assertThat(dueNoticeIds(10_000)).as("a claimed notice waits for its claim to lapse")
                .containsExactly("middle", "late");
        assertThat(dueNoticeIds(70_000)).as("a lapsed claim is due again").containsExactly("middle", "late", "early");
        assertThat(archive.recordNotice(early, 1, claimed.delivered(12_000))).isTrue();
        DeadNotice delivered = archive.deadLetter(early).orElseThrow().notice();
        assertThat(delivered.state()).isEqualTo(DeadNotice.State.DELIVERED);
        assertThat(delivered.deliveredAt()).isEqualTo(12_000L);
        assertThat(delivered.attempts()).isEqualTo(1);

        String middle = keyOf("middle");
        DeadNotice m = archive.deadLetter(middle).orElseThrow().notice().claimed(60_000);
        assertThat(archive.recordNotice(middle, 0, m)).isTrue();
        assertThat(archive.recordNotice(middle, 1, m.failed("HTTP 500 from notice target", 500, 20_000))).isTrue();
        assertThat(dueNoticeIds(19_999)).containsExactly("late");
        assertThat(dueNoticeIds(20_000)).containsExactly("late", "middle");
        DeadNotice retry = archive.deadLetter(middle).orElseThrow().notice();
        assertThat(retry.lastError()).isEqualTo("HTTP 500 from notice target");
        assertThat(retry.lastStatus()).isEqualTo(500);
        assertThat(archive.recordNotice(middle, 1, retry.claimed(90_000))).isTrue();
        assertThat(archive.recordNotice(middle, 2, retry.claimed(90_000).failed("connection refused", null, -1)))
                .isTrue();
        DeadNotice failed = archive.deadLetter(middle).orElseThrow().notice();
        assertThat(failed.state()).isEqualTo(DeadNotice.State.FAILED);
        assertThat(failed.attempts()).isEqualTo(2);
        assertThat(failed.lastError()).isEqualTo("connection refused");
        assertThat(dueNoticeIds(1_000_000)).as("settled notices are never due").containsExactly("late");
    }

    @Test
    void ofSeveralInstancesClaimingOneNoticeExactlyOneWins() throws Exception {
        Job job = deadJob(topic, "contested", 1_000, 5_000).withOnDead(Callback.of("https://a.test/d"));
        archive.write(entries(job));
        String key = DeadLetter.keyOf(job);
        JobArchive second = secondInstance();
        List<Boolean> wins = atOnce(8, i -> (i % 2 == 0 ? archive : second)
                .recordNotice(key, 0, DeadNotice.pending(5_000).claimed(60_000 + i)));
        assertThat(wins).containsOnlyOnce(true);
        assertThat(archive.recordNotice(key, 0, DeadNotice.pending(5_000).claimed(1))).as("stale expectation")
                .isFalse();
        archive.purgeDeadLetters(job.ref());
        assertThat(archive.recordNotice(key, 1, DeadNotice.pending(5_000).delivered(6_000))).as("purged").isFalse();
        assertThat(dueNoticeIds(1_000_000)).isEmpty();
    }

    private List<String> dueNoticeIds(long nowMs) {
        return archive.dueNotices(nowMs, 1000).stream().filter(l -> l.ref().topic().equals(topic))
                .map(l -> l.job().id()).toList();
    }

    private String keyOf(String id) {
        return archive.deadLetter(new JobRef(topic, id)).orElseThrow().key();
    }

    // ------------------------------------------------------------------ tenant scopes

    /**
     * Dead letters of two tenants' topics, operators' topics, and look-alikes a careless prefix test would take for
     * a tenant's: {@code billing} and {@code billing.} (the prefix without, and with nothing after, its dot),
     * {@code billingx.y} (the dot read as any character), {@code aXb-c.x} ({@code _} read as LIKE's any character),
     * {@code invoices.x} (an exact name read as a prefix). Every topic starts with the test's own {@link #topic}, so
     * no other test's letters are in these scopes. Letters of different topics share {@code deadAt}s, so that the
     * listing's order and its cursors rest on the key too.
     */
    private final class Tenants {
        final String billing = topic + ".billing.";
        final TopicScope acme = TopicScope.of("acme-" + topic, List.of(TopicPattern.of(billing + "*"),
                TopicPattern.of(topic + ".invoices"), TopicPattern.of(topic + ".a_b-c.*")));
        final TopicScope shop = TopicScope.of("shop-" + topic, List.of(TopicPattern.of(topic + ".shop.*")));
        final List<String> acmeTopics = List.of(billing + "x", billing + "eu.x", topic + ".invoices",
                topic + ".a_b-c.x");
        final List<String> shopTopics = List.of(topic + ".shop.a", topic + ".shop.b");
        final List<String> operatorTopics = List.of(topic + ".ops", topic + ".billing", billing,
                topic + ".billingx.y", topic + ".aXb-c.x", topic + ".a_b-cx.y", topic + ".invoices.x",
                topic + ".billing-x");
        /** Every letter written, by topic, each topic's newest first. */
        final Map<String, List<Job>> letters = new LinkedHashMap<>();

        Tenants write() {
            List<Job> all = new ArrayList<>();
            int n = 0;
            for (String t : concat(acmeTopics, shopTopics, operatorTopics)) {
                List<Job> jobs = new ArrayList<>();
                for (int i = 2; i >= 0; i--) {
                    jobs.add(failedJob(t, "j" + i, 1_000 + i, 50_000 + i * 1_000 + (n % 2) * 500,
                            i == 1 ? HOOK_B : HOOK_A, 503, "HTTP 503 from callback", "{}"));
                }
                n++;
                letters.put(t, jobs);
                all.addAll(jobs);
            }
            archive.write(entries(all.toArray(Job[]::new)));
            return this;
        }

        /** The keys of the letters of these topics, in the listing's order. */
        List<String> keysOf(List<String> topics) {
            return topics.stream().flatMap(t -> letters.get(t).stream())
                    .sorted(Comparator.comparingLong((Job j) -> j.finishedAt())
                            .thenComparing(DeadLetter::keyOf).reversed()) // ASCII keys: Java's order is the archives'
                    .map(DeadLetter::keyOf).toList();
        }
    }

    @Test
    void aScopedListingCountAndGroupsSeeOnlyTheScopesLetters() {
        Tenants t = new Tenants().write();
        DeadLetterQuery acme = DeadLetterQuery.all().withScope(t.acme);
        DeadLetterQuery shop = DeadLetterQuery.all().withScope(t.shop);

        assertThat(keys(archive.deadLetters(acme))).containsExactlyElementsOf(t.keysOf(t.acmeTopics));
        assertThat(keys(archive.deadLetters(shop))).containsExactlyElementsOf(t.keysOf(t.shopTopics));
        assertThat(archive.countDeadLetters(acme)).isEqualTo(12);
        assertThat(archive.countDeadLetters(shop)).isEqualTo(6);
        List<FailureGroup> groups = archive.failureGroups(acme, 10, 100_000);
        assertThat(groups).extracting(FailureGroup::count).containsExactly(8L, 4L);
        assertThat(groups).allSatisfy(g -> assertThat(t.acme.matches(g.example().job().topic())).isTrue());
        assertThat(archive.failureGroups(shop, 10, 100_000)).extracting(FailureGroup::count).containsExactly(4L, 2L);

        // the other filters narrow within the scope, never past it
        assertThat(keys(archive.deadLetters(acme.withIdPrefix("j1"))))
                .containsExactlyElementsOf(t.keysOf(t.acmeTopics).stream().filter(k -> k.contains("/j1/")).toList());
        assertThat(archive.countDeadLetters(acme.withHost("api.example.com:8443"))).isEqualTo(4);
        assertThat(archive.countDeadLetters(acme.withReplayed(false).withHttpStatus(503))).isEqualTo(12);
        assertThat(keys(archive.deadLetters(new DeadLetterQuery(null, 51_000L, 52_000L, null, 50, null, null, null,
                null, null, null, null, t.shop)))).containsExactlyElementsOf(t.keysOf(t.shopTopics).stream()
                .filter(k -> k.contains("/j1/")).toList());
        // the scope of all is every topic, as before scopes
        assertThat(archive.countDeadLetters(DeadLetterQuery.topic(topic + ".ops").withScope(TopicScope.all())))
                .isEqualTo(3);
    }

    @Test
    void aTopicFilterOutsideTheScopeMatchesNothing() {
        Tenants t = new Tenants().write();
        for (String outside : concat(t.shopTopics, t.operatorTopics)) {
            DeadLetterQuery query = DeadLetterQuery.topic(outside).withScope(t.acme);
            assertThat(archive.deadLetters(query).items()).as(outside).isEmpty();
            assertThat(archive.deadLetters(query).hasNext()).isFalse();
            assertThat(archive.countDeadLetters(query)).as(outside).isZero();
            assertThat(archive.failureGroups(query, 10, 100_000)).as(outside).isEmpty();
            assertThat(archive.purgeDeadLetters(query)).as(outside).isZero();
            assertThat(archive.countDeadLetters(DeadLetterQuery.topic(outside))).as("still there").isEqualTo(3);
        }
        String inside = t.billing + "eu.x";
        assertThat(keys(archive.deadLetters(DeadLetterQuery.topic(inside).withScope(t.acme))))
                .containsExactlyElementsOf(t.keysOf(List.of(inside)));
        assertThat(archive.countDeadLetters(DeadLetterQuery.topic(inside).withScope(t.acme))).isEqualTo(3);
    }

    /**
     * {@code billing.} matches {@code billing.x}, not {@code billing}, {@code billing.} nor {@code billingx.y};
     * {@code a_b-c.} matches itself literally, not {@code aXb-c.x} nor {@code a_b-cx.y}; an exact name is not a prefix.
     */
    @Test
    void aScopesPrefixesMatchLiterallyAndOnlyTopicsThatGoOn() {
        Tenants t = new Tenants().write();
        for (String lookalike : t.operatorTopics) {
            assertThat(t.acme.matches(lookalike)).as(lookalike).isFalse();
        }
        TopicScope prefixOnly = TopicScope.of(null, List.of(TopicPattern.of(topic + ".a_b-c.*")));
        assertThat(keys(archive.deadLetters(DeadLetterQuery.all().withScope(prefixOnly))))
                .containsExactlyElementsOf(t.keysOf(List.of(topic + ".a_b-c.x")));
        TopicScope exactOnly = TopicScope.of(null, List.of(TopicPattern.of(topic + ".invoices")));
        assertThat(keys(archive.deadLetters(DeadLetterQuery.all().withScope(exactOnly))))
                .containsExactlyElementsOf(t.keysOf(List.of(topic + ".invoices")));
        TopicScope billingOnly = TopicScope.of(null, List.of(TopicPattern.of(t.billing + "*")));
        assertThat(archive.countDeadLetters(DeadLetterQuery.all().withScope(billingOnly))).isEqualTo(6);
        assertThat(archive.countDeadLetters(DeadLetterQuery.all().withScope(TopicScope.none()))).isZero();
        assertThat(archive.deadLetters(DeadLetterQuery.all().withScope(TopicScope.none())).items()).isEmpty();
    }

    @Test
    void pagesOfAScopedListingNeitherRepeatNorSkip() {
        Tenants t = new Tenants().write();
        DeadLetterQuery acme = DeadLetterQuery.all().withScope(t.acme);
        for (int limit = 1; limit <= 5; limit++) {
            assertThat(walk(acme.withLimit(limit))).as("pages of %d", limit)
                    .containsExactlyElementsOf(ids(archive.deadLetters(acme)));
            List<String> walkedKeys = new ArrayList<>();
            Page<DeadLetter> page = archive.deadLetters(acme.withLimit(limit));
            walkedKeys.addAll(keys(page));
            while (page.hasNext()) {
                page = archive.deadLetters(acme.withLimit(limit).withCursor(page.nextCursor()));
                walkedKeys.addAll(keys(page));
            }
            assertThat(walkedKeys).as("pages of %d", limit).containsExactlyElementsOf(t.keysOf(t.acmeTopics));
        }
    }

    /** An empty filter purges every letter of the scope, and nothing of any other topic. */
    @Test
    void aScopedPurgeWithAnEmptyFilterPurgesOnlyTheScopesLetters() {
        Tenants t = new Tenants().write();
        DeadLetterQuery acme = DeadLetterQuery.all().withScope(t.acme);

        assertThat(archive.purgeDeadLetters(acme.withIdPrefix("j2"))).isEqualTo(4);
        assertThat(archive.purgeDeadLetters(acme)).isEqualTo(8);

        assertThat(archive.countDeadLetters(acme)).isZero();
        for (String other : concat(t.shopTopics, t.operatorTopics)) {
            assertThat(keys(archive.deadLetters(DeadLetterQuery.topic(other))))
                    .as(other).containsExactlyElementsOf(t.keysOf(List.of(other)));
        }
        assertThat(archive.countDeadLetters(DeadLetterQuery.all().withScope(t.shop))).isEqualTo(6);
    }

    /** The bulk replay pages through the scoped listing: it replays the scope's letters and no others. */
    @Test
    void aScopedBulkReplayReplaysOnlyTheScopesLetters() {
        Tenants t = new Tenants().write();
        try (JobStore store = newStore()) {
            var replayer = new DeadLetterReplayer(store, archive);

            BulkReplayResult result = replayer.replayAll(DeadLetterQuery.all().withScope(t.shop).withLimit(1), null,
                    false, 100);
            assertThat(result.letters()).extracting(BulkReplayResult.LetterOutcome::key)
                    .containsExactlyElementsOf(t.keysOf(t.shopTopics));
            assertThat(result.more()).isFalse();
            BulkReplayResult outside = replayer.replayAll(DeadLetterQuery.topic(topic + ".ops").withScope(t.shop),
                    null, true, 100);
            assertThat(outside.letters()).isEmpty();

            for (String other : concat(t.acmeTopics, t.operatorTopics)) {
                assertThat(archive.deadLetters(DeadLetterQuery.topic(other)).items()).as(other)
                        .extracting(DeadLetter::replayCount).containsOnly(0);
                assertThat(store.find(new JobRef(other, DeadLetterReplayer.replayId("j0", 1_000, 1)))).isEmpty();
            }
            assertThat(archive.deadLetters(DeadLetterQuery.all().withScope(t.shop)).items())
                    .extracting(DeadLetter::replayCount).containsOnly(1);
        }
    }

    @SafeVarargs
    private static List<String> concat(List<String>... lists) {
        return java.util.Arrays.stream(lists).flatMap(List::stream).toList();
    }

    private static List<String> keys(Page<DeadLetter> page) {
        return page.items().stream().map(DeadLetter::key).toList();
    }

    // ------------------------------------------------------------------ unavailable backend

    /**
     * Every operation on an unreachable backend is a {@link StoreException} {@link StoreStatus#UNAVAILABLE}, never
     * an {@link IllegalArgumentException}: the archiver takes that for an entry the archive refuses and would set
     * every entry of the outage aside as refused instead of waiting for the archive to return.
     */
    @Test
    void anUnreachableBackendAnswersUnavailable() {
        JobArchive down;
        try {
            down = newUnreachableArchive();
        } catch (StoreException e) {
            assertThat(e.status()).isEqualTo(StoreStatus.UNAVAILABLE);
            assertThat(e.getMessage()).as("says what to check").isNotBlank();
            return;
        }
        try (JobArchive a = down) {
            Job job = deadJob(topic, "x", 1_000, 5_000);
            String key = DeadLetter.keyOf(job);
            List<Runnable> calls = List.of(
                    () -> a.write(entries(job, succeededJob(topic, "y", 1_000, 5_000))),
                    () -> a.find(job.ref()),
                    () -> a.deadLetters(DeadLetterQuery.topic(topic)),
                    () -> a.deadLetters(DeadLetterQuery.topic(topic).withCursor(DeadLetterCursor.encode(5_000, key))),
                    () -> a.deadLetter(job.ref()),
                    () -> a.deadLetter(key),
                    () -> a.recordReplay(key, 0, new DeadLetter.Replay(1, 6_000, "x:1000:r1", null)),
                    () -> a.purgeDeadLetters(job.ref()),
                    () -> a.purgeDeadLetters(DeadLetterQuery.topic(topic)),
                    () -> a.countDeadLetters(DeadLetterQuery.topic(topic).withHost("api.example.com")),
                    () -> a.failureGroups(DeadLetterQuery.topic(topic), 10, 5_000),
                    () -> a.deadLetters(DeadLetterQuery.all().withScope(TopicScope.of(null,
                            List.of(TopicPattern.of(topic + ".*"), TopicPattern.of(topic))))));
            for (Runnable call : calls) {
                assertThatThrownBy(call::run).isInstanceOfSatisfying(StoreException.class, e -> {
                    assertThat(e.status()).isEqualTo(StoreStatus.UNAVAILABLE);
                    assertThat(e.getMessage()).as("says what failed").isNotBlank();
                });
            }
        }
    }

    // ------------------------------------------------------------------ helpers

    private static DeadLetterQuery query(String topic, Long fromMs, Long toMs, Boolean replayed) {
        return new DeadLetterQuery(topic, fromMs, toMs, replayed, DeadLetterQuery.DEFAULT_LIMIT, null);
    }

    /** Every page of a listing, following the cursors. */
    private List<String> walk(DeadLetterQuery query) {
        List<String> ids = new ArrayList<>();
        Page<DeadLetter> page = archive.deadLetters(query);
        ids.addAll(ids(page));
        int pages = 1;
        while (page.hasNext()) {
            assertThat(page.items()).hasSize(query.limit());
            assertThat(++pages).as("pages walked").isLessThan(1_000);
            page = archive.deadLetters(query.withCursor(page.nextCursor()));
            ids.addAll(ids(page));
        }
        assertThat(page.items().size()).isLessThanOrEqualTo(query.limit());
        return ids;
    }

    private static List<String> ids(Page<DeadLetter> page) {
        return ids(page.items());
    }

    private static List<String> ids(List<DeadLetter> letters) {
        return letters.stream().map(d -> d.job().id()).toList();
    }

    /** Runs {@code task(0..n-1)} on n threads released together, and returns the results in that order. */
    private static <T> List<T> atOnce(int n, IntFunction<T> task) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(n);
        try {
            CountDownLatch ready = new CountDownLatch(n);
            CountDownLatch go = new CountDownLatch(1);
            List<Future<T>> futures = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                int index = i;
                futures.add(pool.submit(() -> {
                    ready.countDown();
                    go.await();
                    return task.apply(index);
                }));
            }
            assertThat(ready.await(10, TimeUnit.SECONDS)).isTrue();
            go.countDown();
            List<T> results = new ArrayList<>();
            for (Future<T> f : futures) {
                results.add(f.get(30, TimeUnit.SECONDS));
            }
            return results;
        } finally {
            pool.shutdownNow();
        }
    }

    // ------------------------------------------------------------------ dead causes (issue 29)

    @Test
    void aLetterKeepsItsCauseAndTheCauseFiltersLettersOfBeforeCountingAsAttemptsExhausted() {
        Job old = deadJob(topic, "before-causes", 1_000, 5_000); // archived before causes existed: none stored
        Job expired = withCause(deadJob(topic, "expired", 1_000, 6_000), DeadCause.EXPIRED);
        Job noRetry = withCause(deadJob(topic, "no-retry", 1_000, 7_000), DeadCause.NO_RETRY);
        Job exhausted = withCause(deadJob(topic, "exhausted", 1_000, 8_000), DeadCause.ATTEMPTS_EXHAUSTED);
        archive.write(entries(old, expired, noRetry, exhausted));

        assertThat(archive.deadLetter(noRetry.ref()).orElseThrow().job().cause()).isEqualTo(DeadCause.NO_RETRY);
        assertThat(archive.deadLetter(old.ref()).orElseThrow().job().deadCause())
                .isEqualTo(DeadCause.ATTEMPTS_EXHAUSTED);
        assertThat(ids(DeadLetterQuery.topic(topic).withCause(DeadCause.EXPIRED))).containsExactly("expired");
        assertThat(ids(DeadLetterQuery.topic(topic).withCause(DeadCause.NO_RETRY))).containsExactly("no-retry");
        assertThat(ids(DeadLetterQuery.topic(topic).withCause(DeadCause.ATTEMPTS_EXHAUSTED)))
                .containsExactly("exhausted", "before-causes");
        assertThat(ids(DeadLetterQuery.topic(topic).withCause(DeadCause.NO_CALLBACK))).isEmpty();
        assertThat(archive.countDeadLetters(DeadLetterQuery.topic(topic).withCause(DeadCause.ATTEMPTS_EXHAUSTED)))
                .isEqualTo(2);
    }

    private List<String> ids(DeadLetterQuery query) {
        return archive.deadLetters(query).items().stream().map(l -> l.job().id()).toList();
    }

    private static Job withCause(Job job, DeadCause cause) {
        return new Job(job.topic(), job.id(), job.payload(), job.runAt(), job.state(), job.attempts(),
                job.maxAttempts(), job.backoff(), job.callback(), job.timeoutMs(), job.broadcast(), job.delivery(),
                job.createdAt(), job.finishedAt(), job.lastError(), job.history(), job.trace(), job.onDead(), cause,
                null);
    }
}
