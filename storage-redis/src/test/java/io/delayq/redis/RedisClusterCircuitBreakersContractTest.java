package io.delayq.redis;

import io.delayq.core.CircuitBreakersContract;
import io.delayq.core.JobStore;
import io.delayq.redis.testing.EmbeddedCluster;
import org.junit.jupiter.api.Tag;

import java.util.Map;

/**
 * The circuits' contract on the three-master cluster {@link RedisClusterContractTest} runs on: the circuits' scripts stay
 * in the one slot of {@code dq:circuits}, and the origins of topics are a key per topic under the topic's own hash
 * tag, written and read in pipelines that span the masters.
 */
@Tag("slow") // a contract suite on a Redis Cluster (CONTRIBUTING.md: the fast run leaves it out)
class RedisClusterCircuitBreakersContractTest extends CircuitBreakersContract {
    @Override
    protected JobStore newStore() {
        return new RedisJobStore(EmbeddedCluster.shared().client(), RedisStoreOptions.defaults()
                .withPartitions(3, Map.of()), true);
    }
}
