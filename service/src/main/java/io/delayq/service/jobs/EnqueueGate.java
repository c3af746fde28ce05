package io.delayq.service.jobs;

import io.delayq.core.NewJob;
import io.delayq.service.errors.QuotaExceededException;

import java.util.List;

/**
 * Admits jobs into a topic before they reach the store: the tenants' quotas (package {@code tenants}). Called with
 * jobs every rule has accepted; admits the first {@code n} of them.
 */
@FunctionalInterface
public interface EnqueueGate {
    /** Admits everything. */
    EnqueueGate OPEN = (topic, jobs) -> Admission.all(jobs.size());

    /**
     * @return how many of {@code jobs}, from the first, may be enqueued (1 to {@code jobs.size()}), and why not the
     *         others
     * @throws QuotaExceededException when none may, naming the quota
     */
    Admission admit(String topic, List<NewJob> jobs);

    /**
     * Checks one job alone (the tenant's largest payload), before {@link #admit}; a refusal refuses that job only.
     *
     * @throws QuotaExceededException naming the quota
     */
    default void check(String topic, NewJob job) {
    }

    /**
     * Admits a new schedule of {@code topic} (a schedule counts as a pending job); the caller then calls
     * {@link #settled settled(topic, 1)} after the store call, whether it succeeded or not.
     *
     * @throws QuotaExceededException naming the quota
     */
    default void admitSchedule(String topic) {
    }

    /**
     * After the store call of {@code admitted} jobs {@link #admit admitted} into {@code topic} returned or failed: they
     * are no longer in flight (a quota counts jobs in flight on this instance until then).
     */
    default void settled(String topic, int admitted) {
    }

    /**
     * @param admitted how many, from the first
     * @param refusal  why the others were not admitted; {@code null} when all were
     */
    record Admission(int admitted, QuotaExceededException refusal) {
        public static Admission all(int count) {
            return new Admission(count, null);
        }
    }
}
