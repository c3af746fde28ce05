package io.delayq.bench.adapters;

import io.delayq.bench.Gate;
import io.delayq.bench.Impl;
import io.delayq.bench.Payloads;
import io.delayq.bench.QueueAdapter;
import io.delayq.bench.Receiver;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import redis.clients.jedis.Connection;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.RedisClient;

import java.util.List;

/**
 * The naive seed design from the literature, as in PEERS.md: {@code ZADD key due json}; 8 consumer threads each run
 * {@code ZRANGEBYSCORE key 0 now LIMIT 0 1} and then {@code ZREM} to claim (the one whose ZREM returns 1 wins),
 * sleeping 500 ms when nothing is due. At-most-once. Bulk path: pipelined ZADD, 1000 per sync.
 */
public final class NaiveImpl implements Impl {
    static final long IDLE_SLEEP_MS = 500;

    @Override
    public String name() {
        return "naive";
    }

    @Override
    public String label() {
        return "naive-jedis-8.0.2";
    }

    @Override
    public String bulkPath() {
        return "pipelined ZADD, 1000 per sync";
    }

    @Override
    public String semantics() {
        return "at-most-once (ZREM before processing)";
    }

    @Override
    public QueueAdapter open(String redisUri, String queueName) {
        GenericObjectPoolConfig<Connection> pool = new GenericObjectPoolConfig<>();
        pool.setMaxTotal(32);
        pool.setMaxIdle(32);
        RedisClient client = RedisClient.builder().fromURI(redisUri).poolConfig(pool).build();
        String key = queueName;
        return new QueueAdapter() {
            @Override
            public void enqueue(int id, String json, long delayMs, long dueAt) {
                client.zadd(key, dueAt, json);
            }

            @Override
            public void enqueueBulk(List<Item> items) {
                try (Pipeline p = client.pipelined()) {
                    for (Item it : items) {
                        p.zadd(key, it.intendedDueAtMs(), it.json());
                    }
                    p.sync();
                }
            }

            @Override
            public AutoCloseable startConsumers(int concurrency, Gate gate, Receiver receiver) {
                return new ConsumerThreads("naive", concurrency, gate, () -> {
                    List<String> head = client.zrangeByScore(key, 0, System.currentTimeMillis(), 0, 1);
                    if (head.isEmpty()) {
                        Thread.sleep(IDLE_SLEEP_MS);
                        return;
                    }
                    if (client.zrem(key, head.get(0)) == 1) {
                        receiver.received(Payloads.idOf(head.get(0)));
                    }
                });
            }

            @Override
            public void close() {
                client.close();
            }
        };
    }
}
