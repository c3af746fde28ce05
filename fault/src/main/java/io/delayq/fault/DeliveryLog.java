package io.delayq.fault;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/** Every callback every receiver got, by job; what the figures are computed from. */
final class DeliveryLog {
    private final Map<String, List<Delivery>> byJob = new ConcurrentHashMap<>();

    void record(Delivery d) {
        List<Delivery> list = byJob.computeIfAbsent(d.key(), k -> new ArrayList<>(1));
        synchronized (list) {
            list.add(d);
        }
    }

    /** The job's deliveries in arrival order (a copy). */
    List<Delivery> of(String key) {
        List<Delivery> list = byJob.get(key);
        if (list == null) {
            return List.of();
        }
        synchronized (list) {
            return List.copyOf(list);
        }
    }

    /** Whether the job has a delivery the receiver answered 200 at once. */
    boolean delivered(String key) {
        for (Delivery d : of(key)) {
            if (d.answer() == Delivery.Answer.OK) {
                return true;
            }
        }
        return false;
    }

    /** The earliest arrival at or after {@code fromMs} of a delivery matching {@code which}, or -1. */
    long firstArrivalFrom(long fromMs, Predicate<Delivery> which) {
        long first = Long.MAX_VALUE;
        for (List<Delivery> list : byJob.values()) {
            synchronized (list) {
                for (Delivery d : list) {
                    if (d.arrivedAtMs() >= fromMs && d.arrivedAtMs() < first && which.test(d)) {
                        first = d.arrivedAtMs();
                    }
                }
            }
        }
        return first == Long.MAX_VALUE ? -1 : first;
    }

    /** Every delivery of the topics, for figures over a whole scenario. */
    List<Delivery> ofTopics(Predicate<String> topic) {
        List<Delivery> all = new ArrayList<>();
        for (List<Delivery> list : byJob.values()) {
            synchronized (list) {
                for (Delivery d : list) {
                    if (topic.test(d.topic())) {
                        all.add(d);
                    }
                }
            }
        }
        return all;
    }
}
