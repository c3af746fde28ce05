package io.delayq.service.consumer;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delayq.core.JobRules;
import io.delayq.core.JobStore;
import io.delayq.core.PolicyDefaults;
import io.delayq.service.history.TopicActivity;
import io.delayq.service.ratelimit.RateLimitMetrics;
import io.delayq.service.ratelimit.TopicPermits;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.lifecycle.Managed;
import org.eclipse.jetty.util.component.LifeCycle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The consumer side of the service: the pull API ({@link LeaseResource}) and broadcast event streams
 * ({@link EventsResource}). {@link #register} adds both resources and subscribes to the store's notifications while
 * the application runs:
 *
 * <pre>{@code ConsumerEndpoints.register(environment, store, policyDefaults, jobRules, engine::watchLeases, limits,
 *         activity);}</pre>
 */
public final class ConsumerEndpoints implements Managed {
    private static final Logger LOG = LoggerFactory.getLogger(ConsumerEndpoints.class);

    private final JobStore store;
    private final LeaseWaiters waiters;
    private final BroadcastHub hub;
    private final List<AutoCloseable> subscriptions = new ArrayList<>();

    private final PullActivity pulls;

    private ConsumerEndpoints(JobStore store, PolicyDefaults defaults, LeaseWatcher watcher, ObjectMapper mapper,
                              MetricRegistry metrics, long keepAliveMs, long maxQueuedBytes, ConsumerFactory limits,
                              TopicActivity activity) {
        this.store = store;
        // delayq.jobs.expired: the delivery engine's meter of the same name (delayq_jobs_expired_total)
        this.pulls = new PullActivity(metrics.meter("delayq.jobs.expired"), activity);
        this.waiters = new LeaseWaiters(new LeaseIssuer(store, defaults, watcher,
                new TopicPermits(store::rateLimiters, new RateLimitMetrics(metrics)),
                pulls), limits.getMaxParkedLeaseRequests(),
                metrics.meter(MetricRegistry.name("delayq", "consumer", "lease-requests-refused")));
        this.hub = new BroadcastHub(mapper, metrics, keepAliveMs, maxQueuedBytes, limits.getMaxEventStreams(),
                limits.getEventStreamWriters());
    }

    /**
     * Registers the lease and event resources and their lifecycle.
     *
     * @param environment the application's environment
     * @param store       the job store, already built
     * @param defaults    the service's policy defaults (lease length when neither the consumer, job nor topic names one)
     * @param rules       the service's limits (how far back a nack may put a job)
     * @param watcher     told when leases were handed out, to take them back on time when they expire
     * @param activity    told of the leases' lateness, the acks, nacks and releases the store accepted, and the dead
     *                    letters they and the reserves made, by cause (the topic history; {@link PullActivity})
     */
    public static ConsumerEndpoints register(Environment environment, JobStore store, PolicyDefaults defaults,
                                             JobRules rules, LeaseWatcher watcher, ConsumerFactory limits,
                                             TopicActivity activity) {
        return register(environment, store, defaults, rules, watcher,
                TimeUnit.SECONDS.toMillis(BroadcastHub.KEEP_ALIVE_SECONDS), BroadcastHub.MAX_QUEUED_BYTES, limits,
                activity);
    }

    /**
     * As {@link #register(Environment, JobStore, PolicyDefaults, JobRules, LeaseWatcher, ConsumerFactory,
     * TopicActivity)}, with
     * another keep-alive
     * interval and another bound on how far an event-stream subscriber may fall behind (tests).
     */
    static ConsumerEndpoints register(Environment environment, JobStore store, PolicyDefaults defaults, JobRules rules,
                                      LeaseWatcher watcher, long keepAliveMs, long maxQueuedBytes,
                                      ConsumerFactory limits, TopicActivity activity) {
        ConsumerEndpoints endpoints = new ConsumerEndpoints(store, defaults, watcher, environment.getObjectMapper(),
                environment.metrics(), keepAliveMs, maxQueuedBytes, limits, activity);
        environment.jersey().register(new LeaseResource(store, defaults, rules, endpoints.waiters,
                environment.metrics().counter(LeaseResource.LATE_ACKS), endpoints.pulls));
        environment.jersey().register(new EventsResource(endpoints.hub));
        environment.lifecycle().manage(endpoints);
        environment.metrics().register(MetricRegistry.name("delayq", "consumer", "parkedLeaseRequests"),
                (Gauge<Integer>) endpoints.waiters::parked);
        environment.metrics().register(MetricRegistry.name("delayq", "consumer", "leaseTopicsTracked"),
                (Gauge<Integer>) endpoints.waiters::trackedTopics);
        // Jetty's graceful stop waits for requests in progress; parked long polls and open event streams would hold
        // it for up to its grace period, so they are answered and closed as soon as stopping begins.
        environment.lifecycle().addEventListener(new LifeCycle.Listener() {
            @Override
            public void lifeCycleStopping(LifeCycle event) {
                endpoints.waiters.close();
                endpoints.hub.close();
            }
        });
        return endpoints;
    }

    @Override
    public void start() {
        subscriptions.add(store.subscribe(waiters));
        subscriptions.add(store.subscribe(hub));
    }

    @Override
    public void stop() {
        for (AutoCloseable subscription : subscriptions) {
            try {
                subscription.close();
            } catch (Exception e) {
                LOG.warn("Unsubscribing from the job store failed", e);
            }
        }
        subscriptions.clear();
        waiters.close();
        hub.close();
    }
}
