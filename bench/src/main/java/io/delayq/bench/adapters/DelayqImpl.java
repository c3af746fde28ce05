package io.delayq.bench.adapters;

import io.delayq.bench.Gate;
import io.delayq.bench.Impl;
import io.delayq.bench.QueueAdapter;
import io.delayq.bench.Receiver;
import io.delayq.core.JobStore;
import io.delayq.core.NewJob;
import io.delayq.core.StoreStatus;
import io.delayq.postgres.PostgresStoreOptions;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * delayq through its Java {@link JobStore} API on the PULL lane, on whichever store the URI names (Redis, or
 * PostgreSQL for a {@code jdbc:postgresql:} URL: the same adapter and consumer, another store behind them): single {@code enqueue}, batch enqueue of 1000 per
 * call, and {@link TimedConsumer} (lease a batch, ack the batch; woken by timers at the next due time, not polling).
 * At-least-once: a job stays leased until acked.
 */
public final class DelayqImpl implements Impl {
    static final int MAX_ATTEMPTS = 10;
    static final int RESERVE_BATCH = 100;
    static final long LEASE_MS = 30_000;

    private final PostgresStoreOptions postgresOptions;
    private final String label;
    private final Function<String, JobStore> connect;

    /** The Redis store, or the PostgreSQL one with its default options. */
    public DelayqImpl() {
        this(PostgresStoreOptions.defaults());
    }

    /** With these options when the URI is PostgreSQL's (the churn shortens the finished-job retention). */
    public DelayqImpl(PostgresStoreOptions postgresOptions) {
        this(postgresOptions, "delayq", null);
    }

    private DelayqImpl(PostgresStoreOptions postgresOptions, String label, Function<String, JobStore> connect) {
        this.postgresOptions = postgresOptions;
        this.label = label;
        this.connect = connect;
    }

    /**
     * The same adapter on a store {@code connect} opens (e.g. a Redis Cluster with P partitions per topic), its rows
     * labelled {@code label}.
     */
    public static DelayqImpl connectingWith(String label, Function<String, JobStore> connect) {
        return new DelayqImpl(PostgresStoreOptions.defaults(), label, connect);
    }

    @Override
    public String name() {
        return "delayq";
    }

    @Override
    public String label() {
        return label;
    }

    @Override
    public String bulkPath() {
        return "enqueue(List) 1000 per call";
    }

    @Override
    public String semantics() {
        return "at-least-once (lease + ack)";
    }

    @Override
    public QueueAdapter open(String storeUri, String topic) throws Exception {
        JobStore store = connect != null ? connect.apply(storeUri) : storeUri.startsWith("jdbc:postgresql:")
                ? DelayqStores.connectPostgres(storeUri, postgresOptions) : DelayqStores.connect(storeUri);
        return new QueueAdapter() {
            @Override
            public void enqueue(int id, String json, long delayMs, long dueAt) {
                check(store.enqueue(NewJob.delayed(topic, Integer.toString(id), json, delayMs, MAX_ATTEMPTS)).status(), id);
            }

            @Override
            public void enqueueBulk(List<Item> items) {
                List<NewJob> jobs = new ArrayList<>(items.size());
                for (Item it : items) {
                    jobs.add(NewJob.delayed(topic, Integer.toString(it.id()), it.json(), it.delayMs(), MAX_ATTEMPTS));
                }
                var res = store.enqueue(jobs);
                for (int i = 0; i < res.size(); i++) {
                    check(res.get(i).status(), items.get(i).id());
                }
            }

            @Override
            public AutoCloseable startConsumers(int concurrency, Gate gate, Receiver receiver) {
                return new TimedConsumer(store, topic, concurrency, RESERVE_BATCH, LEASE_MS, gate, receiver);
            }

            @Override
            public void close() {
                store.close();
            }
        };
    }

    private static void check(StoreStatus status, int id) {
        if (status != StoreStatus.OK) {
            throw new IllegalStateException("delayq refused job " + id + ": " + status);
        }
    }
}
