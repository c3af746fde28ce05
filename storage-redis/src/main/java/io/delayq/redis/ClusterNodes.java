package io.delayq.redis;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.providers.ClusterConnectionProvider;
import redis.clients.jedis.util.JedisClusterCRC16;

import java.lang.reflect.Field;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Which node a key lives on, and a re-read of the cluster's slot map after a failed call. Jedis retries and follows
 * MOVED for single commands, but not inside pipelines; the store pipelines its batches (and every acknowledged write
 * when {@code minReplicas > 0}), so after a failover it must make the client re-read the slot map itself, or every
 * pipeline would keep going to the dead master until the next periodic refresh.
 *
 * <p>Jedis exposes the connection provider of a {@link UnifiedJedis} only to subclasses; it is read once by
 * reflection. Should a future Jedis hide it, {@link #nodeOf} falls back to the key's slot (a WAIT per slot instead of
 * per node: correct, a few more commands) and refreshes are left to the client's own period.
 */
final class ClusterNodes {
    private static final Logger LOG = LoggerFactory.getLogger(ClusterNodes.class);
    /** Stands for the one node of a standalone or Sentinel client. */
    private static final Object SINGLE_NODE = "single node";

    private final ClusterConnectionProvider cluster;
    /** Whether the client is known to talk to one node (standalone, Sentinel); false when it could not be read. */
    private final boolean singleNode;
    private final AtomicBoolean refreshing = new AtomicBoolean();

    ClusterNodes(UnifiedJedis redis) {
        Object provider = provider(redis);
        this.cluster = provider instanceof ClusterConnectionProvider c ? c : null;
        this.singleNode = provider != null && cluster == null;
    }

    boolean isCluster() {
        return cluster != null;
    }

    /** The node that serves {@code key} by the client's slot map (no I/O), or its slot when the map does not say. */
    Object nodeOf(String key) {
        if (singleNode) {
            return SINGLE_NODE;
        }
        int slot = JedisClusterCRC16.getSlot(key);
        HostAndPort node = cluster == null ? null : cluster.getNode(slot);
        return node != null ? node : slot;
    }

    /**
     * Re-reads the slot map on a daemon thread, one re-read at a time: the caller has already failed and is answered
     * at once, and a node that hangs (paused, partitioned) delays only this thread.
     */
    void refreshSoon() {
        if (cluster == null || !refreshing.compareAndSet(false, true)) {
            return;
        }
        Thread t = new Thread(() -> {
            try {
                cluster.renewSlotCache();
            } catch (RuntimeException e) {
                LOG.debug("re-reading the cluster's slot map failed, tried again at the next failed call: {}",
                        e.toString());
            } finally {
                refreshing.set(false);
            }
        }, "delayq-redis-topology");
        t.setDaemon(true);
        t.start();
    }

    private static Object provider(UnifiedJedis redis) {
        try {
            Field field = UnifiedJedis.class.getDeclaredField("provider");
            field.setAccessible(true);
            return field.get(redis);
        } catch (ReflectiveOperationException | RuntimeException e) {
            LOG.debug("cannot read the Jedis connection provider ({}); WAIT goes per slot", e.toString());
            return null;
        }
    }
}
