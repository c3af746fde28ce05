package io.delayq.service.prometheus;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delayq.core.testing.Await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * A real Prometheus server ({@code /usr/bin/prometheus}, Debian's package) for a test: its own configuration and data
 * directory under {@code dir}, a free port on 127.0.0.1, scraping the given targets' {@code /metrics/prometheus} every
 * second; queried through its HTTP API ({@code /api/v1/query}). Stopped (its process only) by {@link #close}.
 */
final class PrometheusServer implements AutoCloseable {
    static final String PROGRAM = "/usr/bin/prometheus";
    static final Path BINARY = Path.of(PROGRAM);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    /** One sample of an instant vector: its labels and value. */
    record Sample(Map<String, String> labels, double value) {
    }

    private final Process process;
    private final String base;
    private final Path log;

    private PrometheusServer(Process process, int port, Path log) {
        this.process = process;
        this.base = "http://127.0.0.1:" + port;
        this.log = log;
    }

    /** Starts a server scraping {@code targets} ({@code host:port} of admin ports), once they are all up. */
    static PrometheusServer start(Path dir, List<String> targets) throws IOException {
        Path config = dir.resolve("prometheus.yml");
        Files.writeString(config, """
                global:
                  scrape_interval: 1s
                  scrape_timeout: 900ms
                  evaluation_interval: 1s
                scrape_configs:
                  - job_name: delayq
                    metrics_path: /metrics/prometheus
                    static_configs:
                      - targets: [%s]
                """.formatted(targets.stream().map(t -> "'" + t + "'").collect(Collectors.joining(", "))));
        int port = freePort();
        Path log = dir.resolve("prometheus.log");
        Process process = new ProcessBuilder(BINARY.toString(),
                "--config.file=" + config,
                "--storage.tsdb.path=" + dir.resolve("data"),
                "--web.listen-address=127.0.0.1:" + port,
                "--log.level=warn")
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        PrometheusServer server = new PrometheusServer(process, port, log);
        try {
            Await.until("Prometheus ready (log: " + log + ")", 60_000, server::ready);
            Await.until("Prometheus scraping every target", 60_000,
                    () -> server.query("sum(up{job=\"delayq\"})").stream().anyMatch(s -> s.value() == targets.size()));
        } catch (AssertionError e) {
            server.close();
            throw new AssertionError(e.getMessage() + "\n" + Files.readString(log), e);
        }
        return server;
    }

    private boolean ready() {
        if (!process.isAlive()) {
            throw new AssertionError("Prometheus exited with " + process.exitValue() + ": " + readLog());
        }
        try {
            return HTTP.send(HttpRequest.newBuilder(URI.create(base + "/-/ready")).build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** The instant vector (or scalar) {@code expr} evaluates to now; an error of the query fails the test. */
    List<Sample> query(String expr) {
        JsonNode answer = get("/api/v1/query?query=" + URLEncoder.encode(expr, StandardCharsets.UTF_8));
        if (!"success".equals(answer.path("status").asText())) {
            throw new AssertionError("Prometheus refused " + expr + ": " + answer);
        }
        JsonNode data = answer.path("data");
        List<Sample> samples = new ArrayList<>();
        if (data.path("resultType").asText().equals("scalar")) {
            samples.add(new Sample(Map.of(), value(data.path("result"))));
            return samples;
        }
        for (JsonNode result : data.path("result")) {
            Map<String, String> labels = new LinkedHashMap<>();
            result.path("metric").fields().forEachRemaining(f -> labels.put(f.getKey(), f.getValue().asText()));
            samples.add(new Sample(labels, value(result.path("value"))));
        }
        return samples;
    }

    /** The values of {@code label} on the series of {@code metric} (Grafana's {@code label_values(metric, label)}). */
    List<String> labelValues(String metric, String label) {
        JsonNode answer = get("/api/v1/label/" + label + "/values?match[]="
                + URLEncoder.encode(metric, StandardCharsets.UTF_8));
        List<String> values = new ArrayList<>();
        answer.path("data").forEach(v -> values.add(v.asText()));
        return values;
    }

    private static double value(JsonNode pair) {
        String text = pair.get(1).asText();
        return switch (text) {
            case "+Inf" -> Double.POSITIVE_INFINITY;
            case "-Inf" -> Double.NEGATIVE_INFINITY;
            case "NaN" -> Double.NaN;
            default -> Double.parseDouble(text);
        };
    }

    private JsonNode get(String pathAndQuery) {
        try {
            HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create(base + pathAndQuery))
                    .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
            return JSON.readTree(response.body());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private String readLog() {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }
}
