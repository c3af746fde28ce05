package io.delayq.service.ratelimit;

import java.util.concurrent.ConcurrentHashMap;

/**
 * How many permits to ask a bucket for, per asker (a topic's push turns, or its pull leases). Permits are taken before
 * the jobs are reserved (so that no job is leased, and no attempt used, beyond the grant), and a permit taken for a
 * job that was not due is lost. So the ask follows the demand last seen instead of the whole batch: it starts at 1,
 * doubles while every permit found a job, and falls to what was found when fewer jobs were due than permitted. A
 * topic with one job due now and then asks for one permit; a burst of due jobs reaches the full batch in a few turns,
 * and at most about half of one ask is lost when a backlog ends.
 */
final class AskSizes {
    /** Askers remembered; beyond this the memory starts again (every ask restarts at 1: only a few permits lost). */
    private static final int MAX_ASKERS = 10_000;
    private static final int MAX_ASK = 1 << 20;

    private final ConcurrentHashMap<String, Integer> sizes = new ConcurrentHashMap<>();

    /** What to ask for, {@code 1} to {@code wanted}. */
    int ask(String asker, int wanted) {
        Integer size = sizes.get(asker);
        return Math.max(1, Math.min(wanted, size == null ? 1 : size));
    }

    /**
     * Learns from one take and the reserve it allowed.
     *
     * @param asked   permits asked for
     * @param granted permits the bucket granted, 1 to {@code asked}
     * @param got     jobs the reserve found, 0 to {@code granted}
     */
    void learn(String asker, int asked, int granted, int got) {
        int next;
        if (got < granted) {
            next = Math.max(1, got); // fewer due than permitted: that was the demand
        } else if (granted >= asked) {
            next = (int) Math.min(MAX_ASK, 2L * asked); // every permit used: there may be more
        } else {
            next = asked; // the limit, not the demand, cut the batch: ask as much again
        }
        if (sizes.size() >= MAX_ASKERS && !sizes.containsKey(asker)) {
            sizes.clear();
        }
        sizes.put(asker, next);
    }
}
