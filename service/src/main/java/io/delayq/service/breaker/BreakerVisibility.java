package io.delayq.service.breaker;

import io.delayq.core.JobStore;
import io.delayq.core.archive.JobArchive;
import io.delayq.service.ratelimit.OriginRateLimits;
import io.delayq.service.ratelimit.RateLimitSpec;
import io.dropwizard.core.setup.Environment;

import java.util.Map;

/**
 * What an operator sees of the breakers: {@code GET /v1/admin/circuits} ({@link CircuitsResource}), the
 * {@value CallbackEndpointsHealthCheck#NAME} health check and the {@code delayq.breaker.*} gauges. The meters are the
 * engine's ({@link CallbackBreaker}); the Prometheus series per origin read the same {@link CircuitSnapshot}.
 */
public final class BreakerVisibility {
    private BreakerVisibility() {
    }

    public static void register(Environment environment, JobStore store, JobArchive archive, CircuitSnapshot snapshot,
                                BreakerFactory config, Map<String, RateLimitSpec> originRateLimits) {
        environment.jersey().register(new CircuitsResource(store, archive, config.isEnabled(),
                OriginRateLimits.check(originRateLimits)));
        environment.healthChecks().register(CallbackEndpointsHealthCheck.NAME,
                new CallbackEndpointsHealthCheck(snapshot));
        CircuitGauges.register(environment.metrics(), snapshot);
    }
}
