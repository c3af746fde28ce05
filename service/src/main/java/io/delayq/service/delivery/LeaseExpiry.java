package io.delayq.service.delivery;

import io.delayq.core.JobStore;
import io.delayq.core.ReclaimedLeases;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a topic's lease timer does when it fires: takes back the topic's expired leases, of both lanes (a lease that
 * ends unanswered counts as a failed attempt and its job is due again), pumps the topic for the push jobs among them,
 * and re-arms the timer for the next deadline. Pulling consumers' leases are covered too: the consumer endpoints
 * report the leases they hand out ({@link DeliveryEngine#watchLeases}).
 */
final class LeaseExpiry {
    private static final Logger LOG = LoggerFactory.getLogger(LeaseExpiry.class);
    static final int EXPIRE_BATCH = 1_000;
    private static final long RETRY_AFTER_ERROR_MS = 1_000;
    /** After a timer that found nothing expired, how long to wait before trusting the same deadline again. */
    private static final long EARLY_TIMER_BACKOFF_MICROS = 10_000;

    private final JobStore store;
    private final StoreClock clock;
    private final TopicTimers timers;
    private final java.util.function.Consumer<TopicState> ready;
    private final StoreErrorLog errors;
    private final DeliveryMetrics metrics;

    LeaseExpiry(JobStore store, StoreClock clock, TopicTimers timers, java.util.function.Consumer<TopicState> ready,
                StoreErrorLog errors, DeliveryMetrics metrics) {
        this.store = store;
        this.clock = clock;
        this.timers = timers;
        this.ready = ready;
        this.errors = errors;
        this.metrics = metrics;
    }

    /** @param armedForDeadline the deadline (store clock) the timer that fired was armed for */
    void deadlinePassed(TopicState ts, long armedForDeadline) {
        if (!timers.running()) {
            return;
        }
        try {
            int total = 0;
            ReclaimedLeases batch;
            do {
                batch = store.reclaimLeases(ts.topic, EXPIRE_BATCH);
                total += batch.takenBack();
                // jobs whose own expiry passed while leased are dead instead of due again (issue 29)
                metrics.expired(ts.topic, batch.expired());
                // and jobs whose last attempt's lease ran out once too often are dead letters (cause LEASE_EXPIRED)
                metrics.leaseExpiredDead(ts.topic, batch.died());
                if (batch.died() > 0) {
                    LOG.info("{} job(s) of topic {} are dead: their last attempt's lease expired unanswered (outcome"
                            + " unknown), cause LEASE_EXPIRED", batch.died(), ts.topic);
                }
            } while (batch.takenBack() == EXPIRE_BATCH && timers.running());
            if (total > 0) {
                LOG.debug("took back {} expired leases of topic {}", total, ts.topic);
                ready.accept(ts); // push jobs among them are due again now
            }
            long next = store.nextLeaseDeadline(ts.topic);
            if (next >= 0) {
                // Nothing expired although a deadline said so: our clock estimate ran ahead; do not spin on it.
                long notBefore = total == 0 && next <= armedForDeadline
                        ? clock.localMicros() + EARLY_TIMER_BACKOFF_MICROS
                        : Long.MIN_VALUE;
                timers.armLease(ts, next, notBefore);
            }
        } catch (RuntimeException e) {
            errors.log("expire leases of topic " + ts.topic, e);
            timers.armLease(ts, clock.storeNowMillis() + RETRY_AFTER_ERROR_MS, Long.MIN_VALUE);
        }
    }
}
