package io.delayq.core;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The {@link StoreListener}s of one store's notification thread, each called on its own: a listener that throws is
 * logged and the others still hear the message, and the store's subscription is not disturbed (a store that let the
 * exception out of its dispatch would skip the other listeners, or take it for a lost connection).
 */
public final class StoreListeners {
    private static final Logger LOG = LoggerFactory.getLogger(StoreListeners.class);
    private final List<StoreListener> listeners = new CopyOnWriteArrayList<>();

    /** @return closing it removes the listener */
    public AutoCloseable add(StoreListener listener) {
        listeners.add(listener);
        return () -> listeners.remove(listener);
    }

    public void clear() {
        listeners.clear();
    }

    public void wake(String topic, long dueAt) {
        for (StoreListener l : listeners) {
            try {
                l.onWake(topic, dueAt);
            } catch (RuntimeException e) {
                LOG.warn("a store listener failed on the wake-up of topic {}: {}", topic, e.toString());
            }
        }
    }

    public void broadcast(Job job) {
        for (StoreListener l : listeners) {
            try {
                l.onBroadcast(job);
            } catch (RuntimeException e) {
                LOG.warn("a store listener failed on broadcast job {}: {}", job.ref(), e.toString());
            }
        }
    }
}
