package io.delayq.fault;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the producers of one scenario sent, and what the service answered: a job counts as acknowledged only when
 * the service answered it {@code 201} or {@code 200} (a batch item's status included). A request that got no answer
 * or a 5xx is not acknowledged; its jobs may still exist (the answer can be lost after the store wrote them), and are
 * counted apart.
 */
final class Ledger {
    /** An acknowledged job: what the service owes. */
    record Acked(String topic, JobSpec job, long ackedAtMs) {
        String key() {
            return Delivery.key(topic, job.id());
        }
    }

    private final Map<String, Acked> acked = new ConcurrentHashMap<>();
    private final Set<String> unacknowledged = ConcurrentHashMap.newKeySet();
    private final AtomicLong serverErrors = new AtomicLong();
    private final AtomicLong noAnswer = new AtomicLong();

    void acknowledged(String topic, JobSpec job) {
        String key = Delivery.key(topic, job.id());
        acked.putIfAbsent(key, new Acked(topic, job, System.currentTimeMillis()));
        unacknowledged.remove(key);
    }

    /** Sent, but not acknowledged (no answer, 5xx, or refused): the service owes nothing. */
    void unacknowledged(String topic, JobSpec job) {
        String key = Delivery.key(topic, job.id());
        if (!acked.containsKey(key)) {
            unacknowledged.add(key);
        }
    }

    void serverError() {
        serverErrors.incrementAndGet();
    }

    void noAnswer() {
        noAnswer.incrementAndGet();
    }

    Collection<Acked> all() {
        return acked.values();
    }

    List<Acked> endingIn(JobSpec.End end) {
        List<Acked> list = new ArrayList<>();
        for (Acked a : acked.values()) {
            if (a.job().end() == end) {
                list.add(a);
            }
        }
        return list;
    }

    int size() {
        return acked.size();
    }

    Set<String> unacknowledgedKeys() {
        return Set.copyOf(unacknowledged);
    }

    /** 5xx answers (a whole request's or a batch item's). */
    long serverErrors() {
        return serverErrors.get();
    }

    /** Requests that got no HTTP answer at all (connection refused or cut: the service was down). */
    long noAnswerCount() {
        return noAnswer.get();
    }

    /** The first acknowledgement at or after {@code fromMs}, or -1. */
    long firstAckFrom(long fromMs) {
        long first = Long.MAX_VALUE;
        for (Acked a : acked.values()) {
            if (a.ackedAtMs() >= fromMs) {
                first = Math.min(first, a.ackedAtMs());
            }
        }
        return first == Long.MAX_VALUE ? -1 : first;
    }

    long lastRunAt() {
        long last = 0;
        for (Acked a : acked.values()) {
            last = Math.max(last, a.job().runAtMs());
        }
        return last;
    }
}
