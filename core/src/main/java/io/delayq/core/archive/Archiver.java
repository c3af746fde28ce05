package io.delayq.core.archive;

import com.codahale.metrics.CachedGauge;
import com.codahale.metrics.Meter;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.health.HealthCheck;
import io.delayq.core.Callback;
import io.delayq.core.Job;
import io.delayq.core.JobState;
import io.delayq.core.JobStore;
import io.delayq.core.OutboxEntry;
import io.delayq.core.StoreException;
import io.delayq.core.StoreStatus;
import io.delayq.core.TopicSettings;
import io.dropwizard.lifecycle.Managed;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Moves finished jobs from the store's outbox into the archive: read a batch, write it, and only then delete it from
 * the outbox. A crash between the write and the delete writes the batch again on the next pass, which the archive's
 * idempotent writes absorb, so an entry is never lost and never archived twice.
 *
 * <p>While there is a backlog it loops without pausing; when the outbox is empty it sleeps {@code idle}. When the
 * archive (or the store) fails it logs once per outage, backs off from {@code retryInitial} doubling up to
 * {@code retryMax}, and retries the same entries; the outbox grows meanwhile and the gauge
 * {@code delayq.archive.backlog} shows it. Several instances may run an archiver on one store: they may write the
 * same entries, which is harmless.
 *
 * <p>An entry the archive refuses outright (not an outage: e.g. a document over MongoDB's size limit) is left in the
 * outbox and logged once; the rest of its batch is archived around it, and later reads skip it for
 * {@value #REFUSED_RETRY_MS} ms before trying it again, so that however many refused entries pile up at the head of
 * the outbox, they never hold back the entries behind them.
 *
 * <p>An entry the store cannot decode (a record written by an incompatible version, or damaged) is moved to the
 * store's quarantine ({@link JobStore#quarantineOutbox}) with its raw form and the reason, logged at ERROR with its
 * entry id, counted, and named in the health check's message; the entries around it are archived as usual. It is not
 * retried: decoding it will not succeed until an operator repairs it (the store's README says how).
 *
 * <p>Metrics: gauges {@code delayq.archive.backlog} (outbox size, -1 when the store cannot tell) and
 * {@code delayq.archive.quarantine} (entries in the store's quarantine, -1 when it cannot tell), meters
 * {@code delayq.archive.archived}, {@code delayq.archive.failures} (passes that failed),
 * {@code delayq.archive.rejected} (entries refused) and {@code delayq.archive.quarantined} (unreadable entries moved
 * to the quarantine).
 */
public final class Archiver implements Managed {
    public static final String BACKLOG_GAUGE = "delayq.archive.backlog";
    public static final String ARCHIVED_METER = "delayq.archive.archived";
    public static final String FAILURES_METER = "delayq.archive.failures";
    public static final String REJECTED_METER = "delayq.archive.rejected";
    public static final String QUARANTINED_METER = "delayq.archive.quarantined";
    public static final String QUARANTINE_GAUGE = "delayq.archive.quarantine";

    private static final Logger LOG = LoggerFactory.getLogger(Archiver.class);
    private static final long PROGRESS_LOG_INTERVAL_MS = 10_000;
    static final long REFUSED_RETRY_MS = 300_000;

    private final JobStore store;
    private final JobArchive archive;
    private final Settings settings;
    private final Meter archived;
    private final Meter failures;
    private final Meter rejected;
    private final Meter quarantined;
    private final Set<String> refusedLogged = ConcurrentHashMap.newKeySet();
    private final Map<String, Long> refusedAt = new ConcurrentHashMap<>();
    private final Object wakeUp = new Object();

    private volatile boolean running;
    private volatile boolean failing;
    private volatile String lastError;
    private Thread thread;

    /**
     * How the archiver paces itself.
     *
     * @param batchSize    outbox entries per read and write
     * @param idle         sleep when the outbox is empty
     * @param retryInitial first wait after a failure
     * @param retryMax     longest wait between retries during an outage
     */
    public record Settings(int batchSize, Duration idle, Duration retryInitial, Duration retryMax) {
        public Settings {
            if (batchSize < 1) {
                throw new IllegalArgumentException("archiver batchSize must be at least 1");
            }
            Objects.requireNonNull(idle, "idle");
            Objects.requireNonNull(retryInitial, "retryInitial");
            Objects.requireNonNull(retryMax, "retryMax");
        }

        public static Settings defaults() {
            return new Settings(500, Duration.ofSeconds(1), Duration.ofMillis(500), Duration.ofSeconds(30));
        }
    }

    public Archiver(JobStore store, JobArchive archive, MetricRegistry metrics, Settings settings) {
        this.store = Objects.requireNonNull(store, "store");
        this.archive = Objects.requireNonNull(archive, "archive");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.archived = metrics.meter(ARCHIVED_METER);
        this.failures = metrics.meter(FAILURES_METER);
        this.rejected = metrics.meter(REJECTED_METER);
        this.quarantined = metrics.meter(QUARANTINED_METER);
        metrics.remove(BACKLOG_GAUGE);
        metrics.register(BACKLOG_GAUGE, new CachedGauge<Long>(1, TimeUnit.SECONDS) {
            @Override
            protected Long loadValue() {
                return backlog();
            }
        });
        metrics.remove(QUARANTINE_GAUGE);
        metrics.register(QUARANTINE_GAUGE, new CachedGauge<Long>(1, TimeUnit.SECONDS) {
            @Override
            protected Long loadValue() {
                return quarantine();
            }
        });
    }

    public Archiver(JobStore store, JobArchive archive, MetricRegistry metrics) {
        this(store, archive, metrics, Settings.defaults());
    }

    @Override
    public synchronized void start() {
        if (running) {
            return;
        }
        running = true;
        thread = new Thread(this::run, "delayq-archiver");
        thread.setDaemon(true);
        thread.start();
    }

    @Override
    public void stop() throws InterruptedException {
        Thread t;
        synchronized (this) {
            running = false;
            t = thread;
            thread = null;
        }
        if (t != null) {
            synchronized (wakeUp) {
                wakeUp.notifyAll();
            }
            t.join(TimeUnit.SECONDS.toMillis(10));
        }
    }

    /** Whether the last pass failed (the archive or the store is unreachable). */
    public boolean isFailing() {
        return failing;
    }

    /**
     * The {@code "archiver"} health check: unhealthy while passes fail (the archive or the store cannot be reached, or
     * the archive refuses writes), which a reachable archive's own ping would not show.
     */
    public HealthCheck healthCheck() {
        return new HealthCheck() {
            @Override
            protected Result check() {
                if (failing) {
                    return Result.unhealthy("the archiver cannot move finished jobs to the archive (backlog %d; they"
                            + " wait in the store's outbox): %s", backlog(), lastError);
                }
                StringBuilder message = new StringBuilder("backlog ").append(backlog());
                int refused = refusedAt.size();
                if (refused > 0) {
                    message.append(", of which ").append(refused).append(" entries the archive refuses (see the log)");
                }
                long moved = quarantined.getCount();
                if (moved > 0) {
                    message.append("; ").append(moved).append(" unreadable entries moved to the store's quarantine")
                            .append(" since start, ").append(quarantine()).append(" there in all (see the log)");
                }
                return Result.healthy(message.toString());
            }
        };
    }

    /** The outbox size, or -1 when the store cannot be asked. */
    public long backlog() {
        try {
            return store.outboxSize();
        } catch (RuntimeException e) {
            return -1L;
        }
    }

    /** Entries in the store's quarantine, or -1 when the store cannot be asked. */
    public long quarantine() {
        try {
            return store.quarantineSize();
        } catch (RuntimeException e) {
            return -1L;
        }
    }

    /**
     * Archives one batch: read, write, delete; unreadable entries of the batch go to the store's quarantine.
     *
     * @return how many entries left the outbox (archived or quarantined); 0 when the outbox is empty
     * @throws RuntimeException when the store or the archive fails; the entries stay in the outbox
     */
    public int drainOnce() {
        Set<String> skip = recentlyRefused();
        List<OutboxEntry> batch = new ArrayList<>(settings.batchSize());
        List<OutboxEntry> unreadable = new ArrayList<>();
        for (OutboxEntry entry : store.readOutbox(settings.batchSize() + skip.size())) {
            if (!entry.isReadable()) {
                unreadable.add(entry);
            } else if (!skip.contains(entry.entryId()) && batch.size() < settings.batchSize()) {
                batch.add(entry);
            }
        }
        if (!unreadable.isEmpty()) {
            quarantine(unreadable);
        }
        if (batch.isEmpty()) {
            return unreadable.size();
        }
        batch = withNoticeTargets(batch);
        List<OutboxEntry> written;
        try {
            archive.write(batch);
            written = batch;
        } catch (StoreException e) {
            if (e.status() == StoreStatus.UNAVAILABLE) {
                throw e;
            }
            written = writeOneByOne(batch);
        } catch (RuntimeException e) {
            written = writeOneByOne(batch);
        }
        if (!written.isEmpty()) {
            store.deleteOutbox(written);
            archived.mark(written.size());
            if (!refusedLogged.isEmpty()) { // an entry refused before went in after all (the cause was fixed)
                written.forEach(e -> {
                    refusedAt.remove(e.entryId());
                    refusedLogged.remove(e.entryId());
                });
            }
        }
        return written.size() + unreadable.size();
    }

    /**
     * Dead jobs without a dead-notice target of their own get their topic's ({@link TopicSettings#onDead()}), read once
     * per topic of the batch, so that the dead letter records the target that applied when the job died, and the
     * archive writes its notice as pending.
     */
    private List<OutboxEntry> withNoticeTargets(List<OutboxEntry> batch) {
        Map<String, Optional<Callback>> topicTargets = new HashMap<>();
        List<OutboxEntry> resolved = new ArrayList<>(batch.size());
        for (OutboxEntry entry : batch) {
            Job job = entry.job();
            if (job.state() != JobState.DEAD || job.onDead() != null) {
                resolved.add(entry);
                continue;
            }
            Optional<Callback> target = topicTargets.computeIfAbsent(job.topic(),
                    topic -> Optional.ofNullable(store.settings(topic).onDead()));
            resolved.add(target.map(t -> new OutboxEntry(entry.entryId(), job.withOnDead(t))).orElse(entry));
        }
        return resolved;
    }

    /** Moves entries the store cannot decode out of the outbox, so that they hold back nothing and are not lost. */
    private void quarantine(List<OutboxEntry> unreadable) {
        store.quarantineOutbox(unreadable);
        quarantined.mark(unreadable.size());
        for (OutboxEntry entry : unreadable) {
            LOG.error("Outbox entry {} (job {}) cannot be read by this version of delayq ({}); it was moved, raw, to the"
                    + " store's quarantine, where an operator can repair it (see the store's README); the other entries"
                    + " are archived as usual", entry.entryId(), entry.ref(), entry.unreadable().reason());
        }
    }

    /** Entries the archive refused less than {@link #REFUSED_RETRY_MS} ago: not read again until then. */
    private Set<String> recentlyRefused() {
        if (refusedAt.isEmpty()) {
            return Set.of();
        }
        long now = System.currentTimeMillis();
        refusedAt.values().removeIf(at -> now - at >= REFUSED_RETRY_MS);
        return Set.copyOf(refusedAt.keySet());
    }

    /**
     * The archive refused the batch for a reason other than being unreachable: find the entries it refuses and keep
     * them in the outbox (logged once each), so that one bad entry does not hold back every other one.
     */
    private List<OutboxEntry> writeOneByOne(List<OutboxEntry> batch) {
        List<OutboxEntry> written = new ArrayList<>(batch.size());
        for (OutboxEntry entry : batch) {
            try {
                archive.write(List.of(entry));
                written.add(entry);
            } catch (StoreException e) {
                if (e.status() == StoreStatus.UNAVAILABLE) {
                    throw e;
                }
                refuse(entry, e);
            } catch (RuntimeException e) {
                refuse(entry, e);
            }
        }
        return written;
    }

    private void refuse(OutboxEntry entry, RuntimeException e) {
        rejected.mark();
        refusedAt.put(entry.entryId(), System.currentTimeMillis());
        if (refusedLogged.add(entry.entryId())) {
            LOG.error("The archive refuses outbox entry {} (job {}); it stays in the store's outbox, where it is not"
                    + " lost, until the cause is fixed: {}", entry.entryId(), entry.ref(), e.toString(), e);
        }
    }

    private void run() {
        long retryMs = settings.retryInitial().toMillis();
        long failingSince = 0;
        long drainedInBacklog = 0;
        long lastProgressLog = System.currentTimeMillis();
        while (running) {
            try {
                int n = drainOnce();
                if (failing) {
                    LOG.info("Archiver recovered after {} ms; backlog now {}",
                            System.currentTimeMillis() - failingSince, backlog());
                    failing = false;
                }
                retryMs = settings.retryInitial().toMillis();
                if (n < settings.batchSize()) {
                    if (drainedInBacklog > 0) {
                        LOG.info("Archiver drained its backlog: {} entries archived", drainedInBacklog + n);
                        drainedInBacklog = 0;
                    }
                    if (n == 0) {
                        pause(settings.idle().toMillis());
                    }
                    continue;
                }
                drainedInBacklog += n;
                long now = System.currentTimeMillis();
                if (now - lastProgressLog >= PROGRESS_LOG_INTERVAL_MS) {
                    LOG.info("Archiver working through a backlog: {} archived so far, {} waiting",
                            drainedInBacklog, backlog());
                    lastProgressLog = now;
                }
            } catch (RuntimeException e) {
                failures.mark();
                lastError = e.toString();
                if (!failing) {
                    failing = true;
                    failingSince = System.currentTimeMillis();
                    LOG.warn("Archiver cannot move finished jobs to the archive; they stay in the store's outbox and"
                            + " will be retried (backing off up to {}): {}", settings.retryMax(), e.toString(), e);
                } else {
                    LOG.debug("Archiver still failing: {}", e.toString());
                }
                pause(retryMs);
                retryMs = Math.min(retryMs * 2, settings.retryMax().toMillis());
            }
        }
    }

    private void pause(long millis) {
        synchronized (wakeUp) {
            if (!running) {
                return;
            }
            try {
                wakeUp.wait(Math.max(1, millis));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                running = false;
            }
        }
    }
}
