package io.delayq.service.errors;

import io.delayq.core.StoreException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Store outcomes by {@link io.delayq.core.StoreStatus}: 404, 409, or 503 when the store cannot be reached. A 503 does
 * not say that nothing changed: a call cut off by a timeout or a failover (or a write that did not reach
 * {@code minReplicas} replicas in time) may have been applied, so it tells the caller to repeat the same request,
 * which enqueue with an id makes safe.
 */
public final class StoreExceptionMapper extends ProblemMapper<StoreException> {
    private static final Logger LOG = LoggerFactory.getLogger(StoreExceptionMapper.class);

    @Override
    Problem problem(StoreException e) {
        return switch (e.status()) {
            case NOT_FOUND -> Problem.of("not-found", 404, e.getMessage());
            case CONFLICT -> Problem.of("conflict", 409, e.getMessage()
                    + "; use another id, or send exactly the same job again");
            case STALE_LEASE -> Problem.of("stale-lease", 409, e.getMessage());
            case NOT_IN_STATE -> Problem.of("not-in-state", 409, e.getMessage());
            case UNAVAILABLE, OK -> {
                LOG.warn("Job store unavailable", e);
                yield Problem.of("store-unavailable", 503, "The job store is unavailable or did not confirm the"
                        + " change in time (an outage, or a failover in progress); the change may or may not have been"
                        + " made. Retry shortly with the same request: a job sent again with the same id is not"
                        + " scheduled twice.");
            }
        };
    }
}
