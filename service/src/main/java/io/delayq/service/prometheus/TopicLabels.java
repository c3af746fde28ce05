package io.delayq.service.prometheus;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * The {@code topic} label of the per-topic series, with bounded cardinality: the first {@code limit} topics this
 * instance sees get a label of their own, every later one is folded into {@value #OTHER}. Prometheus keeps a series
 * per label value for good, so an unbounded topic label would let producers grow its memory without limit.
 *
 * <p>Which topics get their own label depends on the order this instance meets them (and is forgotten on restart); a
 * topic really named {@value #OTHER} shares its series with the overflow.
 */
final class TopicLabels {
    static final String OTHER = "other";

    private final int limit;
    private final ConcurrentMap<String, Boolean> own = new ConcurrentHashMap<>();

    TopicLabels(int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("the Prometheus topic limit must be at least 1, not " + limit);
        }
        this.limit = limit;
    }

    /** The label value of {@code topic}: itself while fewer than the limit have their own, else {@value #OTHER}. */
    String of(String topic) {
        if (own.containsKey(topic)) { // the hot path: a lookup, no lock
            return topic;
        }
        synchronized (own) { // rare (once per new topic): the check and the add must not race past the limit
            if (own.containsKey(topic) || own.size() < limit && own.put(topic, Boolean.TRUE) == null) {
                return topic;
            }
        }
        return OTHER;
    }

    int limit() {
        return limit;
    }
}
