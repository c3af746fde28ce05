package io.delayq.bench.adapters;

import io.delayq.bench.Gate;
import io.delayq.bench.Impl;
import io.delayq.bench.Payloads;
import io.delayq.bench.QueueAdapter;
import io.delayq.bench.Receiver;
import org.redisson.Redisson;
import org.redisson.api.RBlockingQueue;
import org.redisson.api.RDelayedQueue;
import org.redisson.api.RFuture;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Redisson 4.7.0 {@code RDelayedQueue} over an {@code RBlockingQueue}, as in PEERS.md: {@code useSingleServer()}
 * defaults, {@code StringCodec}; consumers {@code poll(1 s)} (BLPOP), which removes the job: at-most-once. Redisson has
 * no batch API for delayed offers, so the bulk column pipelines {@code offerAsync} with 1000 in flight per producer.
 */
@SuppressWarnings("deprecation") // RDelayedQueue is deprecated in favour of the commercial RReliableQueue; it is the peer
public final class RedissonImpl implements Impl {

    @Override
    public String name() {
        return "redisson";
    }

    @Override
    public String label() {
        return "redisson-4.7.0";
    }

    @Override
    public String bulkPath() {
        return "offerAsync window 1000 (no batch API)";
    }

    @Override
    public String semantics() {
        return "at-most-once (BLPOP removes the job)";
    }

    @Override
    public QueueAdapter open(String redisUri, String queueName) {
        Config config = new Config();
        config.useSingleServer().setAddress(redisUri);
        config.setCodec(StringCodec.INSTANCE);
        RedissonClient client = Redisson.create(config);
        RBlockingQueue<String> target = client.getBlockingQueue(queueName, StringCodec.INSTANCE);
        RDelayedQueue<String> delayed = client.getDelayedQueue(target);
        return new QueueAdapter() {
            @Override
            public void enqueue(int id, String json, long delayMs, long dueAt) {
                delayed.offer(json, delayMs, TimeUnit.MILLISECONDS);
            }

            @Override
            public void enqueueBulk(List<Item> items) {
                List<RFuture<Void>> inFlight = new ArrayList<>(items.size());
                for (Item it : items) {
                    inFlight.add(delayed.offerAsync(it.json(), it.delayMs(), TimeUnit.MILLISECONDS));
                }
                for (RFuture<Void> f : inFlight) {
                    f.toCompletableFuture().join();
                }
            }

            @Override
            public AutoCloseable startConsumers(int concurrency, Gate gate, Receiver receiver) {
                return new ConsumerThreads("redisson", concurrency, gate, () -> {
                    String v = target.poll(1, TimeUnit.SECONDS);
                    if (v != null) {
                        receiver.received(Payloads.idOf(v));
                    }
                });
            }

            @Override
            public void close() {
                try {
                    delayed.destroy();
                } finally {
                    client.shutdown();
                }
            }
        };
    }
}
