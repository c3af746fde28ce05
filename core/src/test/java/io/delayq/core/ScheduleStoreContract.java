package io.delayq.core;

import io.delayq.core.schedule.Fire;
import io.delayq.core.schedule.FireIds;
import io.delayq.core.schedule.ScheduleRecord;
import io.delayq.core.schedule.ScheduleStore;
import io.delayq.core.schedule.ScheduleStore.Advance;
import io.delayq.core.schedule.ScheduleStore.AdvanceResult;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

/**
 * What every store's {@link ScheduleStore} promises, run against a real backend by each store module: the
 * compare-and-set that makes a fire happen once, the fire and its job written together, the history bound, listing
 * and deleting. Each test uses a topic of its own.
 */
public abstract class ScheduleStoreContract {

    /** A new store on the shared test backend; closed after each test. */
    protected abstract JobStore newStore();

    protected JobStore store;
    protected ScheduleStore schedules;
    protected String topic;

    @BeforeEach
    void open() {
        store = newStore();
        schedules = store.schedules();
        topic = "sched-" + UUID.randomUUID();
    }

    @AfterEach
    void close() {
        store.close();
    }

    private NewJob job(String id) {
        return NewJob.delayed(topic, id, "{\"n\":1}", 3_600_000, 3);
    }

    private static Fire fire(long at) {
        return new Fire(at, null, Fire.Kind.SCHEDULED, 1, at);
    }

    @Test
    void aPutSetsTheCursorToTheStoresClockAndAReplaceKeepsCreationAndFires() {
        long before = store.now();
        ScheduleRecord first = schedules.put(topic, "nightly", "{\"cron\":\"a\"}", before + 5_000);
        assertThat(first.cursorMs()).isBetween(before, store.now());
        assertThat(first.dueAtMs()).isEqualTo(before + 5_000);
        assertThat(first.fires()).isEmpty();
        assertThat(schedules.advance(topic, "nightly", first.cursorMs(), first.cursorMs() + 1, null,
                fire(first.cursorMs() + 1), job(FireIds.of("nightly", first.cursorMs() + 1))).outcome())
                .isEqualTo(Advance.APPLIED);

        ScheduleRecord replaced = schedules.put(topic, "nightly", "{\"cron\":\"b\"}", null);
        assertThat(replaced.definition()).isEqualTo("{\"cron\":\"b\"}");
        assertThat(replaced.createdAtMs()).isEqualTo(first.createdAtMs());
        assertThat(replaced.dueAtMs()).isNull();
        assertThat(replaced.fires()).hasSize(1);
        assertThat(schedules.get(topic, "nightly")).contains(replaced);
    }

    @Test
    void anAdvanceAppliesOnlyOnTheCursorReadAndEnqueuesItsJobWithIt() {
        ScheduleRecord s = schedules.put(topic, "s", "{}", store.now());
        long at = s.cursorMs() + 1000;
        String id = FireIds.of("s", at);
        AdvanceResult won = schedules.advance(topic, "s", s.cursorMs(), at, at + 1000, fire(at), job(id));
        assertThat(won.outcome()).isEqualTo(Advance.APPLIED);
        assertThat(won.jobId()).startsWith(id);
        assertThat(store.find(new JobRef(topic, won.jobId()))).hasValueSatisfying(j -> {
            assertThat(j.payload()).isEqualTo("{\"n\":1}");
            assertThat(j.state()).isEqualTo(JobState.SCHEDULED);
        });
        ScheduleRecord after = schedules.get(topic, "s").orElseThrow();
        assertThat(after.cursorMs()).isEqualTo(at);
        assertThat(after.dueAtMs()).isEqualTo(at + 1000);
        assertThat(after.fires()).singleElement().satisfies(f -> {
            assertThat(f.fireAtMs()).isEqualTo(at);
            assertThat(f.jobId()).isEqualTo(won.jobId());
        });

        // a second instance that read the old cursor loses, and writes no job
        String other = FireIds.of("s", at) + "-other";
        AdvanceResult lost = schedules.advance(topic, "s", s.cursorMs(), at, at + 1000, fire(at), job(other));
        assertThat(lost.outcome()).isEqualTo(Advance.CONFLICT);
        assertThat(store.find(new JobRef(topic, other))).isEmpty();
        assertThat(schedules.get(topic, "s").orElseThrow().fires()).hasSize(1);
    }

    @Test
    void ofManyConcurrentAdvancesOnTheSameCursorExactlyOneApplies() throws Exception {
        ScheduleRecord s = schedules.put(topic, "race", "{}", store.now());
        long at = s.cursorMs() + 1;
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<AdvanceResult>> results = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                String id = FireIds.of("race", at) + "-" + i;
                Callable<AdvanceResult> call = () -> schedules.advance(topic, "race", s.cursorMs(), at, null, fire(at),
                        job(id));
                results.add(pool.submit(call));
            }
            int applied = 0;
            for (Future<AdvanceResult> r : results) {
                if (r.get().outcome() == Advance.APPLIED) {
                    applied++;
                }
            }
            assertThat(applied).isEqualTo(1);
            assertThat(store.stats(topic).scheduled()).isEqualTo(1);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aSkipMovesTheCursorWithoutAJobAndARunNowEnqueuesWithoutMovingIt() {
        ScheduleRecord s = schedules.put(topic, "s", "{}", store.now());
        long at = s.cursorMs() + 10;
        AdvanceResult skipped = schedules.advance(topic, "s", s.cursorMs(), at, at + 10,
                new Fire(at, null, Fire.Kind.SKIPPED, 3, at), null);
        assertThat(skipped.outcome()).isEqualTo(Advance.APPLIED);
        assertThat(skipped.jobId()).isNull();
        assertThat(store.stats(topic).scheduled()).isZero();

        long now = store.now();
        AdvanceResult run = schedules.runNow(topic, "s", new Fire(now, null, Fire.Kind.RUN_NOW, 1, now),
                job(FireIds.runNow("s", now)));
        assertThat(run.outcome()).isEqualTo(Advance.APPLIED);
        assertThat(store.find(new JobRef(topic, run.jobId()))).isPresent();
        ScheduleRecord after = schedules.get(topic, "s").orElseThrow();
        assertThat(after.cursorMs()).isEqualTo(at);
        assertThat(after.dueAtMs()).isEqualTo(at + 10);
        assertThat(after.fires()).extracting(Fire::kind).containsExactly(Fire.Kind.SKIPPED, Fire.Kind.RUN_NOW);
        assertThat(after.fires().get(0).missed()).isEqualTo(3);
        assertThat(after.fires().get(1).jobId()).isEqualTo(run.jobId());
    }

    @Test
    void countsAreBySchedulesOfTheTopicsStartingWithAPrefixInNameOrder() {
        String other = topic + ".other";
        String deeper = topic + ".x.y";
        String dashed = topic + "-not-asked";
        schedules.put(topic, "a", "{}", null);
        schedules.put(topic, "b", "{}", null);
        schedules.put(other, "c", "{}", null);
        schedules.put(deeper, "d", "{}", null);
        schedules.put(dashed, "e", "{}", null);

        assertThat(schedules.counts(topic + ".", null, 10)).containsExactly(entry(other, 1L), entry(deeper, 1L));
        assertThat(schedules.counts(topic, null, 1)).as("a topic name is its own first answer")
                .containsExactly(entry(topic, 2L));
        assertThat(schedules.counts(topic, null, 10)).as("by code point: '-' < '.'").containsExactly(entry(topic, 2L),
                entry(dashed, 1L), entry(other, 1L), entry(deeper, 1L));
        assertThat(schedules.counts(topic, null, 2)).containsExactly(entry(topic, 2L), entry(dashed, 1L));
        assertThat(schedules.counts(topic, dashed, 2)).as("the next page").containsExactly(entry(other, 1L),
                entry(deeper, 1L));
        assertThat(schedules.counts(topic + ".", other, 10)).containsExactly(entry(deeper, 1L));
        assertThat(schedules.counts(topic + "_", null, 10)).as("'_' is no wildcard").isEmpty();
        assertThat(schedules.counts(topic + "-x", null, 10)).isEmpty();

        schedules.put(topic, "a", "{\"replaced\":true}", null); // a replace is not one more
        schedules.delete(other, "c");
        assertThat(schedules.counts(topic, null, 10)).containsExactly(entry(topic, 2L), entry(dashed, 1L),
                entry(deeper, 1L));
        assertThat(schedules.counts(other, null, 1)).as("its last schedule went").isEmpty();
    }

    @Test
    void theHistoryKeepsTheLastTwentyFires() {
        ScheduleRecord s = schedules.put(topic, "h", "{}", null);
        long cursor = s.cursorMs();
        for (int i = 1; i <= ScheduleStore.MAX_FIRES + 5; i++) {
            long at = s.cursorMs() + i;
            assertThat(schedules.advance(topic, "h", cursor, at, null, fire(at), job(FireIds.of("h", at))).outcome())
                    .isEqualTo(Advance.APPLIED);
            cursor = at;
        }
        List<Fire> fires = schedules.get(topic, "h").orElseThrow().fires();
        assertThat(fires).hasSize(ScheduleStore.MAX_FIRES);
        assertThat(fires.get(0).fireAtMs()).isEqualTo(s.cursorMs() + 6);
        assertThat(fires.get(fires.size() - 1).fireAtMs()).isEqualTo(s.cursorMs() + ScheduleStore.MAX_FIRES + 5);
    }

    @Test
    void dueListsOnlySchedulesDueByThenEarliestFirst() {
        long now = store.now();
        schedules.put(topic, "later", "{}", now + 60_000);
        schedules.put(topic, "second", "{}", now - 1_000);
        schedules.put(topic, "first", "{}", now - 2_000);
        schedules.put(topic, "paused", "{}", null);
        List<String> due = schedules.due(now, 10_000).stream().filter(r -> r.topic().equals(topic))
                .map(ScheduleRecord::name).toList();
        assertThat(due).containsExactly("first", "second");
    }

    @Test
    void listPagesByNameAndDeleteRemovesFromListAndDue() {
        long now = store.now();
        for (String name : List.of("c", "a", "b", "d")) {
            schedules.put(topic, name, "{}", now - 1);
        }
        assertThat(schedules.list(topic, null, 3)).extracting(ScheduleRecord::name).containsExactly("a", "b", "c");
        assertThat(schedules.list(topic, "c", 3)).extracting(ScheduleRecord::name).containsExactly("d");
        assertThat(schedules.delete(topic, "b")).isTrue();
        assertThat(schedules.delete(topic, "b")).isFalse();
        assertThat(schedules.get(topic, "b")).isEmpty();
        assertThat(schedules.list(topic, null, 10)).extracting(ScheduleRecord::name).containsExactly("a", "c", "d");
        assertThat(schedules.due(now, 10_000)).noneMatch(r -> r.topic().equals(topic) && r.name().equals("b"));
        assertThat(schedules.advance(topic, "b", 0, 1, null, null, null).outcome()).isEqualTo(Advance.NOT_FOUND);
        assertThat(schedules.list("sched-none-" + UUID.randomUUID(), null, 10)).isEmpty();
    }
}
