package io.delayq.redis;

import io.delayq.core.JobStore;
import io.delayq.core.JobStoreContract;

import java.util.Map;

/**
 * The store contract on a three-master Redis Cluster, every topic over three partitions, through the same
 * {@link RedisJobStore} code as standalone: each script stays inside one slot, pub/sub spans the cluster.
 */
class RedisClusterContractTest extends JobStoreContract {
    @Override
    protected JobStore newStore() {
        return new RedisJobStore(EmbeddedCluster.shared().client(),
                RedisStoreOptions.defaults().withPartitions(3, Map.of()), true);
    }
}
