package io.delayq.redis;

import io.delayq.core.Job;
import io.delayq.core.StoreListener;
import io.delayq.core.StoreListeners;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.Connection;
import redis.clients.jedis.JedisPubSub;
import redis.clients.jedis.UnifiedJedis;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * One pub/sub connection per store, on a daemon thread, shared by every {@link StoreListener}. When Redis drops the
 * connection it resubscribes with a growing pause (100 ms to 5 s); messages sent meanwhile are missed, which is why
 * the engine keeps a slow safety sweep.
 *
 * <p>A connection can also go silent without closing: its node paused or hung, or cut off by a network partition,
 * while a cluster fails its slots over to a replica. A subscribed connection has no read timeout (it waits for
 * messages), so nothing would ever fail and the store would stay deaf. A watchdog therefore probes the subscription
 * every {@value #PROBE_EVERY_MS} ms and, when nothing (a message, a probe's answer) has come back for
 * {@value #SILENT_LIMIT_MS} ms, closes the connection: the subscriber then asks a cluster client to re-read its slot map (the silent node may be
 * a master just replaced) and subscribes on a node that answers. Cluster pub/sub reaches every node, so any will do.
 */
final class Notifications implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Notifications.class);
    private static final long SUBSCRIBE_WAIT_MS = 5_000;
    static final long PROBE_EVERY_MS = 1_000;
    static final long SILENT_LIMIT_MS = 3_000;

    private final UnifiedJedis redis;
    private final ClusterNodes nodes;
    private final Function<String, Job> broadcastDecoder;
    private final StoreListeners listeners = new StoreListeners();
    private final Object lock = new Object();
    /** Held while writing to the subscription's connection from another thread (probe, unsubscribe). */
    private final Object sendLock = new Object();
    private Thread thread;
    private ScheduledExecutorService watchdog;
    private volatile JedisPubSub current;
    /** The subscription's connection while it is held, when the client lends one (see {@link ClusterNodes#connection}). */
    private volatile Connection connection;
    private volatile long heardAtNanos;
    private volatile boolean subscribed;
    private volatile boolean closed;

    Notifications(UnifiedJedis redis, ClusterNodes nodes, Function<String, Job> broadcastDecoder) {
        this.redis = redis;
        this.nodes = nodes;
        this.broadcastDecoder = broadcastDecoder;
    }

    /** Adds a listener; returns once the subscription is live (or after 5 s when Redis cannot be reached). */
    AutoCloseable add(StoreListener listener) {
        AutoCloseable registration = listeners.add(listener);
        synchronized (lock) {
            if (thread == null && !closed) {
                thread = new Thread(this::run, "delayq-redis-notifications");
                thread.setDaemon(true);
                thread.start();
                watchdog = Executors.newSingleThreadScheduledExecutor(r -> {
                    Thread t = new Thread(r, "delayq-redis-notifications-watchdog");
                    t.setDaemon(true);
                    return t;
                });
                watchdog.scheduleWithFixedDelay(this::watch, PROBE_EVERY_MS, PROBE_EVERY_MS, TimeUnit.MILLISECONDS);
            }
            long deadline = System.currentTimeMillis() + SUBSCRIBE_WAIT_MS;
            while (!subscribed && !closed) {
                long left = deadline - System.currentTimeMillis();
                if (left <= 0) {
                    LOG.warn("the Redis notification subscription is not live yet; wake-ups may be late until it is");
                    break;
                }
                try {
                    lock.wait(left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
        }
        return registration;
    }

    private void run() {
        long pause = 100;
        boolean lostOnce = false;
        while (!closed) {
            boolean again = lostOnce;
            JedisPubSub pubSub = new JedisPubSub() {
                @Override
                public void onSubscribe(String channel, int subscribedChannels) {
                    heard(); // also the watchdog's probe being answered
                    if (subscribedChannels == 2) {
                        if (again && !subscribed) {
                            Connection c = connection;
                            LOG.info("Redis notification subscription live again{}",
                                    c == null ? "" : " on " + c.getHostAndPort());
                        }
                        markSubscribed(true);
                    }
                }

                @Override
                public void onMessage(String channel, String message) {
                    heard();
                    dispatch(channel, message);
                }
            };
            current = pubSub;
            try {
                subscribe(pubSub);
                pause = 100; // unsubscribed on purpose
            } catch (RuntimeException e) {
                if (closed) {
                    break;
                }
                if (subscribed) {
                    pause = 100; // a subscription that worked and then broke: try again soon, not after old failures' pause
                }
                lostOnce = true;
                LOG.warn("Redis notification subscription lost ({}); subscribing again in {} ms", e.getMessage(), pause);
                nodes.refreshSoon();
            } finally {
                markSubscribed(false);
            }
            sleep(pause);
            pause = Math.min(pause * 2, 5_000);
        }
    }

    /** Subscribes on a connection of the client's pools and returns when unsubscribed; throws when the connection fails. */
    private void subscribe(JedisPubSub pubSub) {
        Connection c = nodes.connection();
        if (c == null) {
            redis.subscribe(pubSub, RedisKeys.WAKE, RedisKeys.BROADCAST);
            return;
        }
        try {
            heard();
            connection = c;
            if (!closed) {
                pubSub.proceed(c, RedisKeys.WAKE, RedisKeys.BROADCAST);
            }
        } finally {
            connection = null;
            release(c);
        }
    }

    /**
     * Gives the subscription's connection back to its pool as broken, so the pool closes it rather than lend it for
     * commands (it may still be subscribed, or half read). On a thread of its own: while other callers wait for that
     * node's pool, the pool refills itself by connecting to the node that just failed, which takes the socket timeout,
     * and the subscriber must not wait for that before it subscribes elsewhere.
     */
    private static void release(Connection c) {
        c.setBroken();
        Thread t = new Thread(() -> {
            try {
                c.close();
            } catch (RuntimeException e) {
                LOG.debug("the pool did not take back the notification connection: {}", e.toString());
            }
        }, "delayq-redis-notifications-release");
        t.setDaemon(true);
        t.start();
    }

    /**
     * The watchdog's round: a subscription silent for {@value #SILENT_LIMIT_MS} ms has its connection closed (the
     * subscriber thread, blocked reading it, then fails and subscribes again); a live one is probed, so that silence
     * means the node, not a quiet channel. The probe is a SUBSCRIBE to a channel it has already: Redis confirms it
     * and changes nothing. (Not {@code PING}: under RESP3 its plain reply can be read before Jedis expects it, and
     * then Jedis fails the subscription.)
     */
    private void watch() {
        Connection c = connection;
        JedisPubSub pubSub = current;
        if (c == null || pubSub == null || closed) {
            return;
        }
        long silentMs = (System.nanoTime() - heardAtNanos) / 1_000_000;
        if (silentMs >= SILENT_LIMIT_MS) {
            LOG.warn("the Redis notification subscription on {} has not answered for {} ms (node paused, hung or cut"
                    + " off?); subscribing again elsewhere", c.getHostAndPort(), silentMs);
            heard(); // one warning per silence, while the subscriber thread lets go of the connection
            try {
                c.disconnect();
            } catch (RuntimeException e) {
                // already broken: the subscriber thread is failing on it as well
            }
            return;
        }
        if (subscribed) {
            synchronized (sendLock) {
                try {
                    pubSub.subscribe(RedisKeys.WAKE);
                } catch (RuntimeException e) {
                    // a broken connection: the subscriber thread fails on it too and subscribes again
                }
            }
        }
    }

    private void heard() {
        heardAtNanos = System.nanoTime();
    }

    private void markSubscribed(boolean value) {
        synchronized (lock) {
            subscribed = value;
            lock.notifyAll();
        }
    }

    private void dispatch(String channel, String message) {
        try {
            if (RedisKeys.WAKE.equals(channel)) {
                String[] parts = message.split("\n");
                String topic = parts[0];
                long dueAt = Long.parseLong(parts[2]);
                listeners.wake(topic, dueAt);
            } else if (RedisKeys.BROADCAST.equals(channel)) {
                Job job = broadcastDecoder.apply(message);
                listeners.broadcast(job);
            }
        } catch (RuntimeException e) {
            LOG.warn("an unreadable {} message was skipped: {}", channel, e.toString());
        }
    }

    @Override
    public void close() {
        closed = true;
        synchronized (lock) {
            if (watchdog != null) {
                watchdog.shutdownNow();
            }
        }
        JedisPubSub pubSub = current;
        if (pubSub != null) {
            synchronized (sendLock) {
                try {
                    pubSub.unsubscribe();
                } catch (RuntimeException e) {
                    // not subscribed (any more): nothing to undo
                }
            }
        }
        Connection c = connection;
        if (c != null) {
            // a silent node would never answer the unsubscribe and keep the subscriber thread waiting for good
            try {
                c.disconnect();
            } catch (RuntimeException e) {
                // already broken
            }
        }
        synchronized (lock) {
            lock.notifyAll();
            if (thread != null) {
                thread.interrupt();
            }
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
