package io.delayq.service.delivery;

import io.delayq.core.Callback;
import io.delayq.core.Failure;
import io.delayq.core.Job;
import io.delayq.core.JobStore;
import io.delayq.core.Lease;
import io.delayq.core.PolicyDefaults;
import io.delayq.core.TopicSettings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts the attempt of each reserved lease, by the kind of job: one with a callback (its own, else its topic's) is
 * POSTed by the {@link CallbackSender} from the calling timer thread, without blocking; a broadcast job is published
 * to every instance's event streams; a job with neither dies at once ("no callback"). The last two are store writes,
 * so they run on the {@link AttemptOutcomes} store writers.
 */
final class LeaseDispatcher {
    private static final Logger LOG = LoggerFactory.getLogger(LeaseDispatcher.class);

    private final JobStore store;
    private final PolicyDefaults policy;
    private final StoreClock clock;
    private final CallbackSender sender;
    private final AttemptOutcomes outcomes;
    private final DeliveryMetrics metrics;

    LeaseDispatcher(JobStore store, PolicyDefaults policy, StoreClock clock, CallbackSender sender,
                    AttemptOutcomes outcomes, DeliveryMetrics metrics) {
        this.store = store;
        this.policy = policy;
        this.clock = clock;
        this.sender = sender;
        this.outcomes = outcomes;
        this.metrics = metrics;
    }

    /** Counts the lease in flight and starts its attempt; never throws (a failure to start is a failed attempt). */
    void dispatch(TopicState ts, Lease lease, TopicSettings settings) {
        outcomes.started();
        try {
            long lateness = Math.max(0, clock.storeNowMillis() - lease.job().runAt());
            metrics.lateness.update(lateness);
            metrics.activity.started(ts.topic, lateness);
            Job job = lease.job();
            Callback callback = job.broadcast() ? null : policy.callback(job, settings);
            if (callback != null) {
                sender.send(ts, lease, settings, callback);
                return;
            }
            if (!outcomes.onStoreWriter(() -> publishOrBury(ts, lease, settings))) {
                outcomes.released(ts); // the lease expires and the job comes back
            }
        } catch (RuntimeException e) {
            // a bug or an unexpected job shape must not strand the rest of the batch or leak its slot
            LOG.error("could not dispatch {}; recording it as a failed attempt", lease.ref(), e);
            outcomes.failed(ts, lease, settings, "delivery failed inside delayq: " + e, null, null);
        }
    }

    /** The URL a lease's job would be POSTed to (its own callback, else its topic's), or null for none. */
    String callbackUrl(Lease lease, TopicSettings settings) {
        Job job = lease.job();
        Callback callback = job.broadcast() ? null : policy.callback(job, settings);
        return callback == null ? null : callback.url();
    }

    /**
     * Holds the lease instead of delivering it (its callback origin is over its rate limit): a held nack on a store
     * writer postpones it by the hold's delay without using its attempt.
     */
    void hold(TopicState ts, Lease lease, Failure hold) {
        outcomes.started();
        outcomes.heldLater(ts, lease, hold);
    }

    /** On a store writer: a broadcast is published (and acked); a job without any callback is dead. */
    private void publishOrBury(TopicState ts, Lease lease, TopicSettings settings) {
        Job job = lease.job();
        try {
            if (job.broadcast()) {
                store.publishBroadcast(job);
                outcomes.succeeded(ts, lease, 0);
            } else {
                outcomes.finish(ts, lease, Failure.dead("no callback: the job has none and topic " + job.topic()
                        + " has no default callback; set one with PUT /v1/topics/" + job.topic(), null,
                        io.delayq.core.DeadCause.NO_CALLBACK));
            }
        } catch (RuntimeException e) {
            LOG.error("could not deliver {}; recording it as a failed attempt", lease.ref(), e);
            outcomes.failed(ts, lease, settings, "delivery failed inside delayq: " + e, null, null);
        }
    }
}
