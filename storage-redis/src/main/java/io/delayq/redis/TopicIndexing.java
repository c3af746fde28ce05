package io.delayq.redis;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Brings each {@link TopicNameIndex} in step with its SET once, at the store's start
 * ({@link TopicNameIndex#reconcile}): a store that ran an earlier version has the SETs and no index, and instances of
 * that version, during a rolling upgrade, write the SETs alone. Done before the constructor returns, so the store
 * answers from a whole index; when Redis cannot be reached then (the SET's master failed and is not replaced yet),
 * tried again every {@value #RETRY_MS} ms in the background until it went through, the store working meanwhile (a
 * topic only the SET holds is missing from the pages by name and by prefix until then).
 */
final class TopicIndexing implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TopicIndexing.class);
    static final long RETRY_MS = 5_000;

    private final List<TopicNameIndex> waiting;
    private ScheduledExecutorService retries;

    TopicIndexing(List<TopicNameIndex> indexes) {
        this.waiting = new ArrayList<>(indexes);
        if (!runOnce()) {
            retries = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "delayq-redis-topic-index");
                t.setDaemon(true);
                return t;
            });
            retries.scheduleWithFixedDelay(() -> {
                if (runOnce()) {
                    retries.shutdown();
                }
            }, RETRY_MS, RETRY_MS, TimeUnit.MILLISECONDS);
        }
    }

    /** Reconciles the indexes not reconciled yet; whether none is left. */
    private synchronized boolean runOnce() {
        while (!waiting.isEmpty()) {
            TopicNameIndex index = waiting.get(0);
            try {
                long[] changed = index.reconcile();
                if (changed[0] > 0 || changed[1] > 0) {
                    LOG.info("indexed the topics of {} by name: {} entries added, {} removed (a SET written before the"
                            + " index, or by an earlier version)", index.set(), changed[0], changed[1]);
                }
                waiting.remove(0);
            } catch (RuntimeException e) { // StoreException UNAVAILABLE, mostly
                LOG.warn("could not index the topics of {} by name now ({}); tried again in {} ms. Until then a topic"
                        + " written by an earlier version may be missing from the pages by name and tenants' use",
                        index.set(), e.getMessage(), RETRY_MS);
                return false;
            }
        }
        return true;
    }

    @Override
    public synchronized void close() {
        if (retries != null) {
            retries.shutdownNow();
        }
    }
}
