package io.delayq.redis;

import io.delayq.core.JobStore;
import io.delayq.core.RateLimitersContract;
import io.delayq.core.TenantRegistryContract;
import io.delayq.core.TopicsContract;
import io.delayq.redis.testing.EmbeddedCluster;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;

import java.util.Map;

/**
 * The tenant registry's and the token buckets' contracts on the three-master cluster {@link RedisClusterContractTest}
 * runs on, through the same code as standalone: the tenancy's scripts stay in the one slot of {@code {tenancy}}, each
 * bucket's in its own; and the topic list's, whose pages by name and by a tenant's prefix read {@code dq:topics}' index
 * by name, written with the SET in one script in the slot of {@code {dq:topics}}.
 */
@Tag("slow") // a contract suite on a Redis Cluster (CONTRIBUTING.md: the fast run leaves it out)
class RedisClusterTenancyContractTest {

    private static JobStore newStore() {
        return new RedisJobStore(EmbeddedCluster.shared().client(), RedisStoreOptions.defaults()
                .withPartitions(3, Map.of()), true);
    }

    @Nested
    class Tenants extends TenantRegistryContract {
        @Override
        protected JobStore newStore() {
            return RedisClusterTenancyContractTest.newStore();
        }
    }

    @Nested
    class Topics extends TopicsContract {
        @Override
        protected JobStore newStore() {
            return RedisClusterTenancyContractTest.newStore();
        }
    }

    @Nested
    class Buckets extends RateLimitersContract {
        @Override
        protected JobStore newStore() {
            return RedisClusterTenancyContractTest.newStore();
        }
    }
}
