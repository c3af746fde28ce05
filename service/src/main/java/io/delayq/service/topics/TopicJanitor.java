package io.delayq.service.topics;

import io.delayq.core.JobStore;
import io.delayq.service.prometheus.TopicDepthGauges;
import io.dropwizard.lifecycle.Managed;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Forgets unused topics (issue 26, finding 12), so that the topic list, the safety sweep (which reads the store's
 * topics) and the per-topic depth gauges stop growing with every topic ever used. Every hour (the first pass a minute
 * after start) it goes through the topics a page at a time and asks the store to forget each that has had no
 * scheduled or leased job and no settings for {@code forgetAfter} (7 days; {@link JobStore#forgetIfIdle}: the store
 * marks a topic idle the first time it is seen so). Then the depth gauges of topics no longer listed (forgotten or
 * deleted by any instance) are removed. Each instance runs it; the store forgets each topic once. A store that cannot
 * forget topics stops it with one log line.
 */
public final class TopicJanitor implements Managed {
    private static final Logger LOG = LoggerFactory.getLogger(TopicJanitor.class);
    public static final long DEFAULT_FORGET_AFTER_MS = TimeUnit.DAYS.toMillis(7);
    private static final int PAGE = 1_000;

    private final JobStore store;
    private final TopicDepthGauges gauges;
    private final long forgetAfterMs;
    private final long everyMs;
    private ScheduledExecutorService thread;

    /**
     * @param forgetAfterMs how long a topic stays without jobs and settings before it is forgotten
     * @param everyMs       how often the topics are looked at
     */
    public TopicJanitor(JobStore store, TopicDepthGauges gauges, long forgetAfterMs, long everyMs) {
        this.store = store;
        this.gauges = gauges;
        this.forgetAfterMs = forgetAfterMs;
        this.everyMs = everyMs;
    }

    @Override
    public synchronized void start() {
        thread = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "delayq-topic-janitor");
            t.setDaemon(true);
            return t;
        });
        thread.scheduleWithFixedDelay(this::pass, Math.min(60_000, everyMs), everyMs, TimeUnit.MILLISECONDS);
    }

    @Override
    public synchronized void stop() {
        if (thread != null) {
            thread.shutdownNow();
            thread = null;
        }
    }

    /** One pass over every topic; returns how many were forgotten. */
    int pass() {
        int forgotten = 0;
        Set<String> listed = new HashSet<>();
        try {
            String after = null;
            List<String> page;
            do {
                page = store.topics(after, PAGE);
                for (String topic : page) {
                    if (store.forgetIfIdle(topic, forgetAfterMs)) {
                        forgotten++;
                        LOG.info("Topic {} forgotten: no job and no settings for {} days", topic,
                                forgetAfterMs / TimeUnit.DAYS.toMillis(1));
                    } else {
                        listed.add(topic);
                    }
                }
                after = page.isEmpty() ? null : page.get(page.size() - 1);
            } while (page.size() == PAGE);
            gauges.retainOnly(listed);
        } catch (UnsupportedOperationException e) {
            LOG.info("The store cannot forget topics ({}); unused topics stay listed", e.getMessage());
            stop();
        } catch (RuntimeException e) {
            LOG.warn("Looking for unused topics failed; tried again in {} s: {}", everyMs / 1_000, e.toString());
        }
        return forgotten;
    }
}
