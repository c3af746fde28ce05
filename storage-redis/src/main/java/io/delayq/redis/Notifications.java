package io.delayq.redis;

import io.delayq.core.Job;
import io.delayq.core.StoreListener;
import io.delayq.core.StoreListeners;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.JedisPubSub;
import redis.clients.jedis.UnifiedJedis;

import java.util.function.Function;

/**
 * One pub/sub connection per store, on a daemon thread, shared by every {@link StoreListener}. When Redis drops the
 * connection it resubscribes with a growing pause (100 ms to 5 s); messages sent meanwhile are missed, which is why
 * the engine keeps a slow safety sweep.
 */
final class Notifications implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Notifications.class);
    private static final long SUBSCRIBE_WAIT_MS = 5_000;

    private final UnifiedJedis redis;
    private final Function<String, Job> broadcastDecoder;
    private final StoreListeners listeners = new StoreListeners();
    private final Object lock = new Object();
    private Thread thread;
    private volatile JedisPubSub current;
    private volatile boolean subscribed;
    private volatile boolean closed;

    Notifications(UnifiedJedis redis, Function<String, Job> broadcastDecoder) {
        this.redis = redis;
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
        while (!closed) {
            JedisPubSub pubSub = new JedisPubSub() {
                @Override
                public void onSubscribe(String channel, int subscribedChannels) {
                    if (subscribedChannels == 2) {
                        markSubscribed(true);
                    }
                }

                @Override
                public void onMessage(String channel, String message) {
                    dispatch(channel, message);
                }
            };
            current = pubSub;
            try {
                redis.subscribe(pubSub, RedisKeys.WAKE, RedisKeys.BROADCAST);
                pause = 100; // unsubscribed on purpose
            } catch (RuntimeException e) {
                if (closed) {
                    break;
                }
                LOG.warn("Redis notification subscription lost ({}); retrying in {} ms", e.getMessage(), pause);
            } finally {
                markSubscribed(false);
            }
            sleep(pause);
            pause = Math.min(pause * 2, 5_000);
        }
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
        JedisPubSub pubSub = current;
        if (pubSub != null) {
            try {
                pubSub.unsubscribe();
            } catch (RuntimeException e) {
                // not subscribed (any more): nothing to undo
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
