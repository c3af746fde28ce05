package io.delayq.redis;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Connection;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.providers.ClusterConnectionProvider;
import redis.clients.jedis.providers.ConnectionProvider;
import redis.clients.jedis.util.JedisClusterCRC16;

import java.lang.reflect.Field;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Which node a key lives on, pipelines, and a re-read of the cluster's slot map after a failed call. Jedis retries and follows
 * MOVED for single commands, but not inside pipelines; the store pipelines its batches (and every acknowledged write
 * when {@code minReplicas > 0}), so after a failover it must make the client re-read the slot map itself, or every
 * pipeline would keep going to the dead master until the next periodic refresh.
 *
 * <p>Jedis exposes the connection provider of a {@link UnifiedJedis} only to subclasses; it is read once by
 * reflection. Should a future Jedis hide it, {@link #nodeOf} falls back to the key's slot (a WAIT per slot instead of
 * per node: correct, a few more commands), refreshes are left to the client's own period, and {@link #connection}
 * answers null (the subscriber then subscribes through the client, without a handle to cut a silent connection).
 *
 * <p>Pipelines come from {@link #pipelined}: a cluster pipeline that spans several nodes reads each node's answers on
 * a thread of its own, and Jedis, unless given an executor, starts a pool of 3 threads for every such pipeline and
 * stops it again at the end. The store's pipelines (coalesced single enqueues over several partitions, reserve, acks)
 * share one pool instead: with 8 threads each syncing pipelines of 6 commands over 3 masters on this 2-core machine,
 * 96–685 pipelines/s with a pool per pipeline against 4,600–8,100 with a shared one (loaded machine, 4 rounds each).
 */
final class ClusterNodes implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ClusterNodes.class);
    /** Stands for the one node of a standalone or Sentinel client. */
    private static final Object SINGLE_NODE = "single node";
    /** A slot-map re-read slower than this is logged: it is a query to one node that answers at once when healthy. */
    private static final long SLOW_REFRESH_MS = 5_000;

    private final UnifiedJedis redis;
    private final ConnectionProvider provider;
    private final ClusterConnectionProvider cluster;
    /** Reads the per-node parts of cluster pipelines; null for other clients (their pipelines have one node). */
    private final ExecutorService pipelineSync;
    /** Whether the client is known to talk to one node (standalone, Sentinel); false when it could not be read. */
    private final boolean singleNode;
    private final AtomicBoolean refreshing = new AtomicBoolean();

    ClusterNodes(UnifiedJedis redis) {
        this.redis = redis;
        Object provider = provider(redis);
        this.provider = provider instanceof ConnectionProvider p ? p : null;
        this.cluster = provider instanceof ClusterConnectionProvider c ? c : null;
        this.singleNode = provider != null && cluster == null;
        this.pipelineSync = redis instanceof RedisClusterClient ? pipelineSyncPool() : null;
    }

    /** A pipeline of the client; on a cluster, one that reads its nodes' answers on the shared pool. */
    AbstractPipeline pipelined() {
        return pipelineSync != null ? ((RedisClusterClient) redis).pipelined(pipelineSync) : redis.pipelined();
    }

    /** Threads as needed (one per node a pipeline waits for), kept a minute when idle, never keeping the JVM up. */
    private static ExecutorService pipelineSyncPool() {
        AtomicInteger count = new AtomicInteger();
        return Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "delayq-redis-pipeline-" + count.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    @Override
    public void close() {
        if (pipelineSync != null) {
            pipelineSync.shutdown();
        }
    }

    /**
     * A connection of the client's own pools, held by its caller for as long as it likes (the subscriber): on a
     * cluster one to a master that answers a PING, taken from the slot map as last read; else the one server's. Null
     * when the provider could not be read.
     */
    Connection connection() {
        return provider == null ? null : provider.getConnection();
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
            long start = System.nanoTime();
            try {
                cluster.renewSlotCache();
                long ms = (System.nanoTime() - start) / 1_000_000;
                if (ms > SLOW_REFRESH_MS) {
                    // every call to a moved slot fails until a re-read succeeds, and only one runs at a time
                    LOG.warn("re-reading the cluster's slot map took {} ms (a node paused, hung or cut off?); calls to"
                            + " slots that moved failed meanwhile", ms);
                }
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
