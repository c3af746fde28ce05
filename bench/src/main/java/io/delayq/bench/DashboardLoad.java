package io.delayq.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Open dashboard tabs, as the W4 "dashboard open" rows measure them, refreshing what their page shows at the
 * dashboard's own cadence (service/src/main/resources/assets/ui/js/pages): counters, leases and dead letters every
 * 2 s; per-minute history and the due forecast, which move by the minute, at most every 15 s. Tab 1 is the overview
 * (every topic, with its last hour of history), tab 2 a topic page (history, due forecast, leases in flight) of the
 * busiest topic, tab 3 the dead letters page (failure groups and the first page). Counts requests and answers other
 * than 200. The tabs are opened before the service's warm-up, as an operator's dashboard is open before the load
 * comes, so that neither JVM measures its first compilation of these calls.
 */
final class DashboardLoad implements AutoCloseable {
    static final int TABS = 3;
    private static final long REFRESH_MS = 2_000;
    /** History and forecast: the dashboard refetches them at most this often (HISTORY_MAX_AGE_MS, SLOW_MAX_AGE_MS). */
    private static final long SLOW_REFRESH_MS = 15_000;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final String base;
    private final String token;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final List<Thread> tabs = new ArrayList<>();
    private final AtomicLong requests = new AtomicLong();
    private final AtomicLong errors = new AtomicLong();
    private volatile boolean running = true;

    DashboardLoad(String base, String token) {
        this.base = base;
        this.token = token;
        for (int tab = 0; tab < TABS; tab++) {
            int page = tab;
            Thread t = new Thread(() -> refreshEvery2s(page), "bench-dashboard-tab-" + tab);
            t.setDaemon(true);
            tabs.add(t);
        }
        tabs.forEach(Thread::start);
    }

    long requests() {
        return requests.get();
    }

    long errors() {
        return errors.get();
    }

    private void refreshEvery2s(int page) {
        long slowAt = 0;
        while (running) {
            long start = System.currentTimeMillis();
            boolean slow = start >= slowAt;
            if (slow) {
                slowAt = start + SLOW_REFRESH_MS;
            }
            try {
                refresh(page, slow);
            } catch (Exception e) {
                errors.incrementAndGet();
            }
            long rest = REFRESH_MS - (System.currentTimeMillis() - start);
            if (rest > 0) {
                try {
                    Thread.sleep(rest);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }

    private void refresh(int page, boolean slow) throws Exception {
        JsonNode topics = get("/v1/topics?limit=1000").path("items"); // the dashboard's page
        switch (page) {
            case 0 -> {
                if (slow) {
                    for (JsonNode t : topics) {
                        get("/v1/topics/" + enc(t.path("topic").asText()) + "/history?minutes=60");
                    }
                }
            }
            case 1 -> {
                String busiest = null;
                long most = -1;
                for (JsonNode t : topics) {
                    long n = t.path("scheduled").asLong() + t.path("succeeded").asLong();
                    if (n > most) {
                        most = n;
                        busiest = t.path("topic").asText();
                    }
                }
                if (busiest != null) {
                    String p = "/v1/topics/" + enc(busiest);
                    get(p);
                    get(p + "/leases?limit=100");
                    if (slow) {
                        get(p + "/history?minutes=60");
                        get(p + "/forecast?minutes=60");
                    }
                }
            }
            default -> {
                get("/v1/admin/dead-letters/groups?limit=50");
                get("/v1/admin/dead-letters?limit=50");
            }
        }
    }

    private JsonNode get(String path) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(base + path))
                .header("Authorization", "Bearer " + token).timeout(Duration.ofSeconds(10)).GET().build();
        HttpResponse<String> r = http.send(request, HttpResponse.BodyHandlers.ofString());
        requests.incrementAndGet();
        if (r.statusCode() != 200) {
            errors.incrementAndGet();
            return JSON.createObjectNode();
        }
        return JSON.readTree(r.body());
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        for (Thread t : tabs) {
            t.interrupt();
            t.join(5_000);
        }
    }
}
