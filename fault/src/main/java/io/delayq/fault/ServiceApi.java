package io.delayq.fault;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delayq.testing.ServiceProcess;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The service's HTTP API as the suite uses it: producers schedule through it (every answer written into a
 * {@link Ledger}), and the suite reads dead letters, metrics and health checks.
 */
final class ServiceApi {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** A status and a body; status 0 when there was no answer at all. */
    record Answer(int status, String body) {
        boolean answered() {
            return status > 0;
        }

        JsonNode json() throws IOException {
            return JSON.readTree(body);
        }
    }

    private final ServiceProcess service;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2))
            .version(HttpClient.Version.HTTP_1_1).build();

    ServiceApi(ServiceProcess service) {
        this.service = service;
    }

    /** Schedules one job; acknowledged on 201 or 200. @return whether it was acknowledged */
    boolean schedule(Ledger ledger, String topic, JobSpec job) {
        Answer a = send("POST", service.baseUrl() + "/v1/topics/" + topic + "/jobs", job.toJson(), Duration.ofSeconds(10));
        count(ledger, a);
        if (a.status() == 201 || a.status() == 200) {
            ledger.acknowledged(topic, job);
            return true;
        }
        ledger.unacknowledged(topic, job);
        return false;
    }

    /**
     * Schedules up to {@code limits.maxBatchSize} jobs in one request; each item answered 201 or 200 is acknowledged.
     *
     * @return how many were acknowledged
     */
    int scheduleBatch(Ledger ledger, String topic, List<JobSpec> jobs) {
        StringBuilder body = new StringBuilder("{\"jobs\":[");
        for (int i = 0; i < jobs.size(); i++) {
            body.append(i == 0 ? "" : ",").append(jobs.get(i).toJson());
        }
        Answer a = send("POST", service.baseUrl() + "/v1/topics/" + topic + "/jobs/batch", body.append("]}").toString(),
                Duration.ofSeconds(60));
        count(ledger, a);
        int acknowledged = 0;
        if (a.status() == 200) {
            try {
                for (JsonNode item : a.json().path("items")) {
                    JobSpec job = jobs.get(item.path("index").asInt());
                    int status = item.path("status").asInt();
                    if (status == 201 || status == 200) {
                        ledger.acknowledged(topic, job);
                        acknowledged++;
                    } else {
                        if (status >= 500) {
                            ledger.serverError();
                        }
                        ledger.unacknowledged(topic, job);
                    }
                }
                return acknowledged;
            } catch (IOException e) {
                // an answer that is not the batch result acknowledges nothing
            }
        }
        for (JobSpec job : jobs) {
            ledger.unacknowledged(topic, job);
        }
        return acknowledged;
    }

    private static void count(Ledger ledger, Answer a) {
        if (!a.answered()) {
            ledger.noAnswer();
        } else if (a.status() >= 500) {
            ledger.serverError();
        }
    }

    /**
     * Every dead letter of a topic in the archive, counted by job id (a count above 1 is the same job archived twice).
     *
     * @throws IOException when the archive cannot be asked (503) or the answer is not a page
     */
    Map<String, Integer> deadLetters(String topic) throws IOException {
        Map<String, Integer> byId = new HashMap<>();
        String cursor = null;
        do {
            String url = service.baseUrl() + "/v1/admin/dead-letters?limit=1000&topic=" + topic
                    + (cursor == null ? "" : "&cursor=" + URLEncoder.encode(cursor, StandardCharsets.UTF_8));
            Answer a = send("GET", url, null, Duration.ofSeconds(30));
            if (a.status() != 200) {
                throw new IOException("GET dead letters answered " + (a.answered() ? a.status() + " " + a.body() : "nothing"));
            }
            JsonNode page = a.json();
            for (JsonNode letter : page.path("items")) {
                byId.merge(letter.path("id").asText(), 1, Integer::sum);
            }
            cursor = page.hasNonNull("nextCursor") ? page.get("nextCursor").asText() : null;
        } while (cursor != null);
        return byId;
    }

    /** The admin port's {@code /metrics}, or null when the service does not answer. */
    JsonNode metrics() {
        Answer a = send("GET", service.adminUrl() + "/metrics", null, Duration.ofSeconds(5));
        try {
            return a.status() == 200 ? a.json() : null;
        } catch (IOException e) {
            return null;
        }
    }

    /** A health check's {@code healthy} flag from the admin port's {@code /healthcheck}, or null when unknown. */
    Boolean healthy(String check) {
        Answer a = send("GET", service.adminUrl() + "/healthcheck", null, Duration.ofSeconds(10));
        try {
            JsonNode node = a.answered() ? a.json().path(check).path("healthy") : null;
            return node == null || node.isMissingNode() ? null : node.asBoolean();
        } catch (IOException e) {
            return null;
        }
    }

    private Answer send(String method, String url, String json, Duration timeout) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(timeout)
                .header("Authorization", "Bearer " + FaultRig.TOKEN);
        if (json != null) {
            b.header("Content-Type", "application/json").method(method, HttpRequest.BodyPublishers.ofString(json));
        } else {
            b.method(method, HttpRequest.BodyPublishers.noBody());
        }
        try {
            HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
            return new Answer(r.statusCode(), r.body());
        } catch (IOException e) {
            return new Answer(0, e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Answer(0, "interrupted");
        }
    }
}
