package io.delayq.redis;

import io.delayq.core.Delivery;
import io.delayq.core.Lease;
import io.delayq.core.LeaseRef;
import io.delayq.core.NewJob;
import io.delayq.core.ReserveResult;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A measuring probe, not a test (nothing here is asserted and surefire does not pick it up). Starts its own Redis,
 * then reports µs per enqueue / reserve / ack at a small and a large number of pending jobs in one partition, Redis
 * bytes per pending job, and Redis calls per job. Run from storage-redis:
 *
 * <pre>
 * ../mvnw -q -o test-compile dependency:build-classpath -Dmdep.outputFile=target/cp.txt
 * java -cp target/test-classes:target/classes:$(cat target/cp.txt) io.delayq.redis.StoreProbe [largeN]
 * </pre>
 */
public final class StoreProbe {
    /** ~219 bytes, like the peers' benchmark job: {"id":N,"body":{…200 bytes…}}. */
    static String payload(long n) {
        String head = "{\"id\":" + n + ",\"body\":";
        String body = "{\"order\":\"A-" + n + "\",\"pad\":\"";
        int pad = 200 - body.length() - 2;
        return head + body + "x".repeat(Math.max(0, pad)) + "\"}}";
    }

    public static void main(String[] args) throws Exception {
        int large = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        try (EmbeddedRedis server = EmbeddedRedis.start(0, null, false);
             UnifiedJedis admin = RedisClient.create(server.uri());
             RedisJobStore store = RedisJobStore.connect(server.uri())) {
            System.out.printf("payload bytes: %d%n", payload(123456).length());
            memory(store, admin, "mem", 100_000);
            singleEnqueue(store, admin, "w1single", 100_000, 8);
            batchEnqueue(store, admin, "w1batch", 200_000, 1_000, 8);
            drain(store, admin, "w1batch", 8, 100);
            for (int size : new int[] {10_000, large}) {
                costsAt(store, admin, "scale" + size, size);
            }
        }
    }

    static long usedMemory(UnifiedJedis admin) {
        for (String line : admin.info("memory").split("\r\n")) {
            if (line.startsWith("used_memory:")) {
                return Long.parseLong(line.substring("used_memory:".length()));
            }
        }
        throw new IllegalStateException("no used_memory in INFO");
    }

    static long calls(UnifiedJedis admin) {
        long total = 0;
        for (String line : admin.info("commandstats").split("\r\n")) {
            int at = line.indexOf("calls=");
            if (line.startsWith("cmdstat_") && at > 0 && !line.startsWith("cmdstat_info")) {
                total += Long.parseLong(line.substring(at + 6, line.indexOf(',', at)));
            }
        }
        return total;
    }

    /** Redis CPU seconds (user + sys) so far: on a loaded 2-core machine a steadier cost than wall time. */
    static double cpu(UnifiedJedis admin) {
        double total = 0;
        for (String line : admin.info("cpu").split("\r\n")) {
            if (line.startsWith("used_cpu_user:") || line.startsWith("used_cpu_sys:")) {
                total += Double.parseDouble(line.substring(line.indexOf(':') + 1));
            }
        }
        return total;
    }

    /** CPU seconds this JVM (the client) has used so far. */
    static double clientCpu() {
        return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime() / 1e9;
    }

    static List<NewJob> jobs(String topic, int from, int n, long delayMs) {
        List<NewJob> jobs = new ArrayList<>(n);
        for (int i = from; i < from + n; i++) {
            jobs.add(NewJob.delayed(topic, "job-" + i, payload(i), delayMs + (i % 50_000), 10));
        }
        return jobs;
    }

    static void memory(RedisJobStore store, UnifiedJedis admin, String topic, int n) {
        store.enqueue(jobs(topic, -1, 1, 600_000)); // the keys exist before measuring
        long before = usedMemory(admin);
        for (int i = 0; i < n; i += 1_000) {
            store.enqueue(jobs(topic, i, 1_000, 600_000));
        }
        long after = usedMemory(admin);
        System.out.printf("memory: %d pending jobs, %.0f bytes per pending job%n", n, (after - before) / (double) n);
    }

    static void singleEnqueue(RedisJobStore store, UnifiedJedis admin, String topic, int n, int threads) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        AtomicInteger next = new AtomicInteger();
        long calls = calls(admin);
        double cpu = cpu(admin);
        double client = clientCpu();
        long start = System.nanoTime();
        List<Future<?>> fs = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            fs.add(pool.submit(() -> {
                int i;
                while ((i = next.getAndIncrement()) < n) {
                    store.enqueue(NewJob.delayed(topic, "s-" + i, payload(i), 10_000 + (i % 50_000), 10));
                }
            }));
        }
        for (Future<?> f : fs) {
            f.get();
        }
        double secs = (System.nanoTime() - start) / 1e9;
        pool.shutdown();
        System.out.printf("single enqueue, %d threads: %.0f jobs/s, %.2f Redis calls/job, %.1f µs Redis CPU/job, %.1f µs client CPU/job%n",
                threads, n / secs, (calls(admin) - calls) / (double) n, (cpu(admin) - cpu) * 1e6 / n, (clientCpu() - client) * 1e6 / n);
    }

    static void batchEnqueue(RedisJobStore store, UnifiedJedis admin, String topic, int n, int batch, int threads) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<List<NewJob>> batches = new ArrayList<>();
        for (int i = 0; i < n; i += batch) {
            batches.add(jobs(topic, i, batch, -60_000)); // already due, for the drain that follows
        }
        AtomicInteger next = new AtomicInteger();
        long calls = calls(admin);
        double cpu = cpu(admin);
        double client = clientCpu();
        long start = System.nanoTime();
        List<Future<?>> fs = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            fs.add(pool.submit(() -> {
                int i;
                while ((i = next.getAndIncrement()) < batches.size()) {
                    store.enqueue(batches.get(i));
                }
            }));
        }
        for (Future<?> f : fs) {
            f.get();
        }
        double secs = (System.nanoTime() - start) / 1e9;
        pool.shutdown();
        System.out.printf("batch enqueue (%d per call, %d threads): %.0f jobs/s, %.2f Redis calls/job, %.1f µs Redis CPU/job, %.1f µs client CPU/job%n",
                batch, threads, n / secs, (calls(admin) - calls) / (double) n, (cpu(admin) - cpu) * 1e6 / n, (clientCpu() - client) * 1e6 / n);
    }

    static void drain(RedisJobStore store, UnifiedJedis admin, String topic, int threads, int max) throws Exception {
        long pending = store.stats(topic).scheduled();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        AtomicInteger done = new AtomicInteger();
        long calls = calls(admin);
        double cpu = cpu(admin);
        double client = clientCpu();
        long start = System.nanoTime();
        List<Future<?>> fs = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            fs.add(pool.submit(() -> {
                while (true) {
                    ReserveResult r = store.reserve(topic, Delivery.PULL, max, 60_000);
                    if (r.leases().isEmpty()) {
                        return;
                    }
                    store.ack(r.leases().stream().map(LeaseRef::of).toList());
                    done.addAndGet(r.leases().size());
                }
            }));
        }
        for (Future<?> f : fs) {
            f.get();
        }
        double secs = (System.nanoTime() - start) / 1e9;
        pool.shutdown();
        System.out.printf("drain (reserve %d + batch ack, %d threads): %d of %d jobs, %.0f jobs/s, %.2f Redis calls/job, %.1f µs Redis CPU/job, %.1f µs client CPU/job%n",
                max, threads, done.get(), pending, done.get() / secs, (calls(admin) - calls) / (double) done.get(),
                (cpu(admin) - cpu) * 1e6 / done.get(), (clientCpu() - client) * 1e6 / done.get());
    }

    /** µs per single enqueue, per reserve of 1 and per ack of 1, with {@code size} jobs pending in one partition. */
    static void costsAt(RedisJobStore store, UnifiedJedis admin, String topic, int size) {
        for (int i = 0; i < size; i += 1_000) {
            store.enqueue(jobs(topic, i, Math.min(1_000, size - i), 3_600_000)); // pending, not due
        }
        int ops = 5_000;
        long start = System.nanoTime();
        for (int i = 0; i < ops; i++) {
            store.enqueue(NewJob.delayed(topic, "due-" + i, payload(i), 0, 10));
        }
        double enqueueUs = (System.nanoTime() - start) / 1e3 / ops;
        Map<String, Lease> leases = new HashMap<>();
        start = System.nanoTime();
        for (int i = 0; i < ops; i++) {
            for (Lease l : store.reserve(topic, Delivery.PULL, 1, 60_000).leases()) {
                leases.put(l.job().id(), l);
            }
        }
        double reserveUs = (System.nanoTime() - start) / 1e3 / ops;
        start = System.nanoTime();
        for (Lease l : leases.values()) {
            store.ack(List.of(LeaseRef.of(l)));
        }
        double ackUs = (System.nanoTime() - start) / 1e3 / Math.max(1, leases.size());
        System.out.printf("%,d pending in one partition: enqueue %.1f µs, reserve(1) %.1f µs, ack %.1f µs (1 thread, round trip included; %d leased)%n",
                size, enqueueUs, reserveUs, ackUs, leases.size());
    }
}
