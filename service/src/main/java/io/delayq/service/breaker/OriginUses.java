package io.delayq.service.breaker;

import io.delayq.core.breaker.CircuitBreakers;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * Which callback origins each topic's jobs were sent to (or held for) from this instance, written to the store's
 * record ({@link CircuitBreakers#recordOrigins}) off the delivery path, so that a tenant's token lists the circuits of
 * the origins its jobs' own callback URLs use ({@link TenantOrigins}). {@link #note} is a map lookup on the calling
 * thread and never touches the store; the breaker's thread ({@link CircuitWriter}) calls {@link #flush} once a second,
 * which writes the pairs not written in the last {@value #REWRITE_MS} ms, all in one store call. A flush that fails
 * keeps its pairs for the next one; what is unwritten at a crash is written by the next delivery of that pair.
 *
 * <p>Bounded: at most {@value #MAX_PAIRS} pairs are remembered as written (past that the memory starts afresh, which
 * costs one write more per pair) and at most as many wait for a flush (beyond, a pair is written at a later note).
 */
final class OriginUses {
    private static final Logger LOG = LoggerFactory.getLogger(OriginUses.class);
    /** A pair is written again after this long: well inside the store's retention, rarely enough to cost nothing. */
    static final long REWRITE_MS = 60_000;
    static final int MAX_PAIRS = 10_000;

    private final LongSupplier storeNowMs;
    /** Pair → when it was last queued for a write (the store's clock, ms). */
    private final ConcurrentHashMap<Use, Long> noted = new ConcurrentHashMap<>();
    private final Set<Use> pending = ConcurrentHashMap.newKeySet();
    private volatile boolean unsupported;

    /** @param storeNowMs the store's clock as this instance estimates it: the times the record keeps */
    OriginUses(LongSupplier storeNowMs) {
        this.storeNowMs = storeNowMs;
    }

    /** A job of {@code topic} is sent to, or held for, {@code origin}. Never blocks, never throws for the store. */
    void note(String topic, String origin) {
        if (unsupported) {
            return;
        }
        Use use = new Use(topic, origin);
        long now = storeNowMs.getAsLong();
        Long at = noted.get(use);
        if (at != null && now - at < REWRITE_MS) {
            return; // written, or waiting for the next flush
        }
        if (pending.size() >= MAX_PAIRS) {
            return; // a store that stays down: noted again by a later delivery
        }
        if (noted.size() >= MAX_PAIRS) {
            noted.clear();
        }
        noted.put(use, now);
        pending.add(use);
    }

    /**
     * Writes the pairs noted since the last flush, in one call. Pairs it could not write wait for the next flush.
     *
     * @throws RuntimeException the store's failure, for the caller to log
     */
    void flush(CircuitBreakers store) {
        if (pending.isEmpty() || unsupported) {
            return;
        }
        List<Use> taken = new ArrayList<>(pending);
        taken.forEach(pending::remove);
        Map<String, Set<String>> byTopic = new TreeMap<>();
        for (Use use : taken) {
            byTopic.computeIfAbsent(use.topic, t -> new TreeSet<>()).add(use.origin);
        }
        try {
            store.recordOrigins(byTopic, storeNowMs.getAsLong());
        } catch (UnsupportedOperationException none) {
            unsupported = true;
            noted.clear();
            pending.clear();
            LOG.info("circuit breaker: the store does not record which origins topics use ({}); a tenant's token lists"
                    + " the circuits of its topics' callbacks and its dead letters' hosts only", none.getMessage());
        } catch (RuntimeException e) {
            for (Use use : taken) {
                if (pending.size() < MAX_PAIRS) {
                    pending.add(use);
                }
            }
            throw e;
        }
    }

    private record Use(String topic, String origin) {
    }
}
