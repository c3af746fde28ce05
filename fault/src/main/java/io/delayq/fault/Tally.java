package io.delayq.fault;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * The figures of a scenario, counted job by job from what was acknowledged ({@link Ledger}) and what the receivers
 * saw ({@link DeliveryLog}) or the archive holds (dead letters):
 *
 * <ul>
 *   <li><b>reached</b>: acknowledged jobs that ended as owed: a callback answered 200, or a dead letter;</li>
 *   <li><b>lost</b>: acknowledged jobs that did not (the suite fails on any);</li>
 *   <li><b>duplicated</b>: deliveries of a job after one it answered 200 (at-least-once repeats), plus dead letters
 *       of the same job beyond the first;</li>
 *   <li><b>early</b>: jobs with a delivery that arrived more than the tolerance before their {@code runAt} (the suite
 *       fails on any).</li>
 * </ul>
 */
record Tally(int acknowledged, int reached, int lost, int duplicated, int early, int unacknowledgedDelivered,
             List<String> lostSample) {

    /**
     * @param deadLetters per topic, the archive's dead letters by job id (only topics with jobs that end there)
     */
    static Tally of(Ledger ledger, DeliveryLog log, Map<String, Map<String, Integer>> deadLetters, long earlyToleranceMs) {
        int reached = 0;
        int duplicated = 0;
        int early = 0;
        List<String> lost = new ArrayList<>();
        for (Ledger.Acked a : ledger.all()) {
            List<Delivery> deliveries = log.of(a.key());
            boolean ranEarly = false;
            for (Delivery d : deliveries) {
                ranEarly |= d.arrivedAtMs() < a.job().runAtMs() - earlyToleranceMs;
            }
            early += ranEarly ? 1 : 0;
            if (a.job().end() == JobSpec.End.DELIVERED) {
                int firstOk = firstOk(deliveries);
                if (firstOk < 0) {
                    lost.add(a.key());
                } else {
                    reached++;
                    duplicated += deliveries.size() - firstOk - 1;
                }
            } else {
                int letters = deadLetters.getOrDefault(a.topic(), Map.of()).getOrDefault(a.job().id(), 0);
                if (letters == 0) {
                    lost.add(a.key());
                } else {
                    reached++;
                    duplicated += letters - 1;
                }
            }
        }
        int unacknowledgedDelivered = 0;
        for (String key : ledger.unacknowledgedKeys()) {
            unacknowledgedDelivered += log.of(key).isEmpty() ? 0 : 1;
        }
        lost.sort(null);
        return new Tally(ledger.size(), reached, lost.size(), duplicated, early, unacknowledgedDelivered,
                lost.subList(0, Math.min(10, lost.size())));
    }

    private static int firstOk(List<Delivery> deliveries) {
        for (int i = 0; i < deliveries.size(); i++) {
            if (deliveries.get(i).answer() == Delivery.Answer.OK) {
                return i;
            }
        }
        return -1;
    }

    /** Whether every acknowledged job that is owed a delivery has one answered 200. */
    static boolean allDelivered(Ledger ledger, DeliveryLog log) {
        for (Ledger.Acked a : ledger.endingIn(JobSpec.End.DELIVERED)) {
            if (!log.delivered(a.key())) {
                return false;
            }
        }
        return true;
    }

    /**
     * When each acknowledged job of the topic was first delivered, minus when it was due, sorted (ms); jobs not
     * delivered are left out.
     */
    static long[] lateness(Ledger ledger, DeliveryLog log, String topic) {
        List<Long> late = new ArrayList<>();
        for (Ledger.Acked a : ledger.all()) {
            if (a.topic().equals(topic)) {
                long first = firstOkArrival(log, a.key());
                if (first >= 0) {
                    late.add(first - a.job().runAtMs());
                }
            }
        }
        long[] sorted = late.stream().mapToLong(Long::longValue).toArray();
        Arrays.sort(sorted);
        return sorted;
    }

    /** The arrival of the last of the topic's first deliveries (when the last job got through), or -1. */
    static long lastFirstDelivery(Ledger ledger, DeliveryLog log, String topic) {
        long last = -1;
        for (Ledger.Acked a : ledger.all()) {
            if (a.topic().equals(topic)) {
                last = Math.max(last, firstOkArrival(log, a.key()));
            }
        }
        return last;
    }

    private static long firstOkArrival(DeliveryLog log, String key) {
        for (Delivery d : log.of(key)) {
            if (d.answer() == Delivery.Answer.OK) {
                return d.arrivedAtMs();
            }
        }
        return -1;
    }

    /** The value at quantile {@code q} (0–1) of sorted values, or NaN for none. */
    static double percentile(long[] sorted, double q) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int i = (int) Math.ceil(q * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
    }

    /** Polls {@code done} every 200 ms until it holds or {@code deadlineMs} passes. @return whether it held */
    static boolean await(long deadlineMs, BooleanSupplier done) throws InterruptedException {
        return await(deadlineMs, 200, done);
    }

    /** Polls {@code done} every {@code everyMs} until it holds or {@code deadlineMs} passes. @return whether it held */
    static boolean await(long deadlineMs, long everyMs, BooleanSupplier done) throws InterruptedException {
        while (!done.getAsBoolean()) {
            if (System.currentTimeMillis() > deadlineMs) {
                return false;
            }
            Thread.sleep(everyMs);
        }
        return true;
    }
}
