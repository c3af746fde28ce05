package io.delayq.bench;

import io.delayq.testing.CallbackReceiver;
import io.delayq.testing.ServiceProcess;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Rate-limit precision (BENCHMARK.md, "Rate-limit precision"; issue 29): three service instances on one store, a topic
 * limited to {@code perSecond} with a {@code burst}, and all its jobs due at one instant, so that they pile up behind
 * the limit. At the receiver: deliveries per second — the mean over whole one-second bins after the first (the burst
 * is in the first), and the worst one-second window sliding over every arrival — against the limit and against the
 * bound {@code perSecond + burst}; lost and duplicated. The limit is the fleet's: three instances at 50/s each would
 * show 150 in a window.
 */
final class RatePrecision {
    static final String TABLE = "RATE";
    static final int INSTANCES = 3;

    private final Backend backend;
    private final String prefix;
    private final Sizes sizes;
    private final Results results;
    private final PrintStream log;
    private final Path serviceJar;

    RatePrecision(Backend backend, Sizes sizes, Results results, PrintStream log, Path serviceJar) {
        this.backend = backend;
        this.prefix = backend.tablePrefix();
        this.sizes = sizes;
        this.results = results;
        this.log = log;
        this.serviceJar = serviceJar;
    }

    /** The limit of each size: (perSecond, burst, jobs). */
    private int[] shape() {
        return switch (sizes.name()) {
            case "full" -> new int[]{50, 10, 3_000};
            case "quick" -> new int[]{50, 10, 1_000};
            default -> new int[]{20, 5, 100};
        };
    }

    void run() {
        String table = prefix + TABLE;
        String why = ServiceWorkloads.skipReason(backend, serviceJar);
        if (why != null) {
            results.note(table, why);
            log.println("  " + table + " " + why);
            return;
        }
        int[] shape = shape();
        int perSecond = shape[0];
        int burst = shape[1];
        int jobs = shape[2];
        log.printf("== %s rate-limit precision: %d/s burst %d, %,d jobs due at once, %d instances (%s)%n", prefix,
                perSecond, burst, jobs, INSTANCES, serviceJar.getFileName());
        for (int rep = 1; rep <= sizes.reps(); rep++) {
            String busy = Machine.settle(120);
            if (busy != null) {
                results.note(table, "rep " + rep + ": " + busy);
            }
            List<ServiceProcess> fleet = new ArrayList<>();
            try (CallbackReceiver receiver = new CallbackReceiver()) {
                String store = backend.serviceStoreYaml(backend.fresh(ServiceWorkloads.LABEL));
                for (int i = 0; i < INSTANCES; i++) {
                    ServiceProcess service = BenchServices.service(serviceJar, store);
                    fleet.add(service);
                    service.start();
                }
                Map<String, Double> m = round(fleet, receiver, perSecond, burst, jobs);
                results.add(new Results.Run(table, "delayq-service x" + INSTANCES, rep, m, Map.of()));
                log.printf("  %s rep %d: limit %d/s (bound %d): mean %.1f/s, worst window %.0f; lost %.0f,"
                                + " duplicated %.0f%n", table, rep, perSecond, perSecond + burst, m.get("mean_per_s"),
                        m.get("worst_window"), m.get("lost"), m.get("duplicated"));
            } catch (Exception e) {
                results.note(table, "rep " + rep + ": failed (" + BenchMain.rootMessage(e) + ")");
                log.println("  " + table + " rep " + rep + " failed: " + e);
            } finally {
                for (ServiceProcess service : fleet) {
                    try {
                        service.close();
                    } catch (Exception e) {
                        log.println("  " + table + ": stopping a service failed: " + e);
                    }
                }
            }
        }
        backend.clear();
    }

    private Map<String, Double> round(List<ServiceProcess> fleet, CallbackReceiver receiver, int perSecond, int burst,
                                      int jobs) throws Exception {
        String topic = "rate." + UUID.randomUUID().toString().substring(0, 8);
        Receipts receipts = new Receipts(jobs);
        ConcurrentLinkedQueue<Long> arrivals = new ConcurrentLinkedQueue<>();
        receiver.handTo(BenchServices.ids(id -> {
            arrivals.add(System.currentTimeMillis());
            receipts.received(id);
        }));
        try (KeepAliveHttp http = new KeepAliveHttp("127.0.0.1", fleet.get(0).port(), BenchServices.TOKEN)) {
            KeepAliveHttp.Response put = http.send("PUT", "/v1/topics/" + topic,
                    "{\"rateLimit\":{\"perSecond\":" + perSecond + ",\"burst\":" + burst + "}}");
            if (put.status() != 200) {
                throw new IllegalStateException("PUT rateLimit answered " + put.status() + ": " + put.body());
            }
            long instant = System.currentTimeMillis() + 3_000;
            java.util.Arrays.fill(receipts.due, instant);
            for (int s = 0; s < jobs; s += 500) {
                StringBuilder body = new StringBuilder("{\"jobs\":[");
                for (int id = s; id < Math.min(jobs, s + 500); id++) {
                    body.append(id == s ? "" : ",").append(ServiceWorkloads.jobJson(id,
                            "\"runAt\":\"" + Instant.ofEpochMilli(instant) + "\"", BenchServices.url(receiver), null));
                }
                KeepAliveHttp.Response r = http.send("POST", "/v1/topics/" + topic + "/jobs/batch",
                        body.append("]}").toString());
                if (r.status() != 200) {
                    throw new IllegalStateException("batch answered " + r.status() + ": " + r.body());
                }
            }
        }
        long drainMs = (long) ((jobs - burst) * 1000.0 / perSecond);
        receipts.awaitAll(drainMs * 2 + 3_000 + sizes.lostAfterMs());
        Thread.sleep(sizes.dupGraceMs());

        long[] sorted = arrivals.stream().mapToLong(Long::longValue).sorted().toArray();
        Map<String, Double> m = new LinkedHashMap<>();
        m.put("per_second_limit", (double) perSecond);
        m.put("burst", (double) burst);
        m.put("bound", (double) (perSecond + burst));
        m.put("jobs", (double) jobs);
        m.put("deliveries", (double) sorted.length);
        m.put("mean_per_s", meanAfterFirstSecond(sorted));
        m.put("worst_window", (double) worstWindow(sorted, 1_000));
        m.put("mean_vs_limit", meanAfterFirstSecond(sorted) / perSecond);
        m.put("worst_vs_bound", worstWindow(sorted, 1_000) / (double) (perSecond + burst));
        m.put("lost", (double) receipts.lost());
        m.put("duplicated", (double) receipts.duplicated());
        return m;
    }

    /** Deliveries per whole one-second bin from the first arrival, leaving out the first bin (the burst) and the last. */
    static double meanAfterFirstSecond(long[] sorted) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        long first = sorted[0];
        int bins = (int) ((sorted[sorted.length - 1] - first) / 1000);
        if (bins < 2) {
            return Double.NaN;
        }
        int counted = 0;
        for (long t : sorted) {
            long bin = (t - first) / 1000;
            if (bin >= 1 && bin < bins) {
                counted++;
            }
        }
        return counted / (double) (bins - 1);
    }

    /** The most arrivals within any window of {@code windowMs} starting at an arrival. */
    static int worstWindow(long[] sorted, long windowMs) {
        int worst = 0;
        int from = 0;
        for (int to = 0; to < sorted.length; to++) {
            while (sorted[to] - sorted[from] >= windowMs) {
                from++;
            }
            worst = Math.max(worst, to - from + 1);
        }
        return worst;
    }
}
