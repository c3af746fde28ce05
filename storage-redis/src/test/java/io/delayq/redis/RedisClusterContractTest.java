package io.delayq.redis;

import io.delayq.redis.testing.EmbeddedCluster;
import io.delayq.core.JobRef;
import io.delayq.core.JobStore;
import io.delayq.core.JobStoreContract;
import org.junit.jupiter.api.Tag;

import java.time.Duration;
import java.util.Map;

/**
 * The store contract on a three-master Redis Cluster, every topic over three partitions, through the same
 * {@link RedisJobStore} code as standalone: each script stays inside one slot, pub/sub spans the cluster.
 */
@Tag("slow") // the whole store contract on a Redis Cluster (CONTRIBUTING.md: the fast run leaves it out)
class RedisClusterContractTest extends JobStoreContract {
    @Override
    protected JobStore newStore() {
        return new RedisJobStore(EmbeddedCluster.shared().client(),
                RedisStoreOptions.defaults().withPartitions(3, Map.of()), true);
    }

    @Override
    protected JobStore newStoreWithRetention(long retentionMs) {
        return new RedisJobStore(EmbeddedCluster.shared().client(), RedisStoreOptions.defaults()
                .withPartitions(3, Map.of()).withFinishedRetention(Duration.ofMillis(retentionMs))
                .withTrimInterval(Duration.ofMillis(100)), true);
    }

    @Override
    protected JobStore newUnreachableStore() {
        return RedisJobStore.connect("redis://127.0.0.1:1");
    }

    @Override
    protected void makeUnreadable(JobStore store, JobRef ref) {
        RedisFixtures.makeUnreadable((RedisJobStore) store, ref);
    }
}
