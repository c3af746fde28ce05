package io.delayq.service.schedules;

import com.codahale.metrics.Counter;
import com.codahale.metrics.MetricRegistry;
import io.delayq.core.JobStore;
import io.delayq.core.NewJob;
import io.delayq.core.schedule.Fire;
import io.delayq.core.schedule.FireIds;
import io.delayq.core.schedule.ScheduleRecord;
import io.delayq.core.schedule.ScheduleStore;
import io.delayq.core.schedule.ScheduleStore.Advance;
import io.delayq.core.schedule.ScheduleStore.AdvanceResult;
import io.dropwizard.lifecycle.Managed;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The scheduler loop, on every instance: every {@code tickMs} it reads the schedules due by the store's clock and
 * takes each one step at a time ({@link FirePlanner}) through {@link ScheduleStore#advance}, whose compare-and-set
 * on the cursor lets one instance win each fire; the others are answered {@link Advance#CONFLICT} and move on. No
 * leader, no lock: an instance that stops mid-fire changed nothing, and the next tick of any instance fires it.
 */
public final class ScheduleRunner implements Managed {
    private static final Logger LOG = LoggerFactory.getLogger(ScheduleRunner.class);
    /** How often each instance looks for due schedules; a fire is enqueued within about this of its time. */
    public static final long DEFAULT_TICK_MS = 250;
    /** Due schedules read per tick. */
    static final int BATCH = 200;
    /** Steps one schedule may take in one tick (a catch-up and the fires on time after it). */
    static final int MAX_STEPS = 50;

    private final JobStore store;
    private final ScheduleJobs jobs;
    private final long tickMs;
    private final Counter fired;
    private final Counter conflicts;
    private ScheduledExecutorService loop;

    public ScheduleRunner(JobStore store, ScheduleJobs jobs, long tickMs, MetricRegistry metrics) {
        this.store = store;
        this.jobs = jobs;
        this.tickMs = tickMs;
        this.fired = metrics.counter(MetricRegistry.name("delayq", "schedules", "fires"));
        this.conflicts = metrics.counter(MetricRegistry.name("delayq", "schedules", "fire-conflicts"));
    }

    @Override
    public void start() {
        loop = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "delayq-schedules");
            t.setDaemon(true);
            return t;
        });
        loop.scheduleWithFixedDelay(this::tickSafely, tickMs, tickMs, TimeUnit.MILLISECONDS);
    }

    @Override
    public void stop() throws InterruptedException {
        if (loop != null) {
            loop.shutdownNow();
            loop.awaitTermination(10, TimeUnit.SECONDS);
        }
    }

    private void tickSafely() {
        try {
            tick();
        } catch (RuntimeException e) {
            LOG.warn("schedules: this tick failed, the next one tries again: {}", e.toString());
        }
    }

    /** One pass over the due schedules. */
    void tick() {
        ScheduleStore schedules = store.schedules();
        long now = store.now();
        List<ScheduleRecord> due = schedules.due(now, BATCH);
        for (ScheduleRecord record : due) {
            if (Thread.currentThread().isInterrupted()) {
                return;
            }
            try {
                run(schedules, record, now);
            } catch (RuntimeException e) {
                LOG.warn("schedules: schedule '{}' of topic {} was not fired this tick: {}", record.name(),
                        record.topic(), e.toString());
            }
        }
    }

    private void run(ScheduleStore schedules, ScheduleRecord record, long now) {
        CheckedSchedule schedule = jobs.read(record);
        long cursor = record.cursorMs();
        Long dueAt = record.dueAtMs();
        for (int step = 0; step < MAX_STEPS; step++) {
            Optional<FirePlan> next = FirePlanner.plan(schedule, cursor, dueAt, now);
            if (next.isEmpty()) {
                return;
            }
            FirePlan plan = next.get();
            NewJob job = null;
            Fire fire = null;
            if (plan.fires()) {
                Fire.Kind kind = plan.kind();
                if (plan.withJob()) {
                    try {
                        job = jobs.job(record.topic(), schedule, FireIds.of(record.name(), plan.fireAtMs()),
                                kind == Fire.Kind.SCHEDULED ? Long.valueOf(plan.jobRunAtMs()) : null);
                    } catch (IllegalArgumentException e) {
                        // The template no longer makes a job (the topic's rules changed since the PUT): the fire is
                        // recorded without one, and said.
                        LOG.warn("schedules: schedule '{}' of topic {} fired without a job: {}", record.name(),
                                record.topic(), e.getMessage());
                        kind = Fire.Kind.SKIPPED;
                    }
                }
                fire = new Fire(plan.fireAtMs(), null, kind, plan.missed(), now);
            }
            AdvanceResult result = schedules.advance(record.topic(), record.name(), cursor, plan.newCursorMs(),
                    plan.dueAtMs(), fire, job);
            if (result.outcome() != Advance.APPLIED) {
                if (result.outcome() == Advance.CONFLICT) {
                    conflicts.inc();
                }
                return; // another instance fired it, or the schedule was replaced or deleted meanwhile
            }
            if (result.jobId() != null) {
                fired.inc();
                jobs.enqueued(record.topic());
            }
            cursor = plan.newCursorMs();
            dueAt = plan.dueAtMs();
        }
    }
}
