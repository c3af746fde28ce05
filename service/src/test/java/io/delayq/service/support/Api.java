package io.delayq.service.support;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** A small real HTTP client for the service under test. */
public final class Api {
    static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private final String base;
    private final String token;

    public Api(String base, String token) {
        this.base = base;
        this.token = token;
    }

    public Api as(String otherToken) {
        return new Api(base, otherToken);
    }

    public String base() {
        return base;
    }

    /** An answer: status, headers and the body parsed as JSON (null when empty or not JSON). */
    public record Answer(int status, HttpResponse<String> raw, JsonNode json) {
        public String header(String name) {
            return raw.headers().firstValue(name).orElse(null);
        }

        public String contentType() {
            return header("Content-Type");
        }

        public String detail() {
            return json == null ? null : json.path("detail").asText();
        }

        @Override
        public String toString() {
            return status + " " + raw.body();
        }
    }

    public Answer post(String path, String json) {
        return send(request(path).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json)));
    }

    public Answer put(String path, String json) {
        return send(request(path).header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(json)));
    }

    public Answer get(String path) {
        return send(request(path).GET());
    }

    public Answer delete(String path) {
        return send(request(path).DELETE());
    }

    public Answer send(HttpRequest.Builder builder) {
        try {
            HttpResponse<String> response = CLIENT.send(builder.build(), HttpResponse.BodyHandlers.ofString());
            JsonNode json = null;
            String body = response.body();
            if (body != null && !body.isBlank()) {
                try {
                    json = JSON.readTree(body);
                } catch (IOException notJson) {
                    json = null;
                }
            }
            return new Answer(response.statusCode(), response, json);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    public HttpRequest.Builder request(String path) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30));
        if (token != null) {
            builder.header("Authorization", "Bearer " + token);
        }
        return builder;
    }

    public static String json(Object value) {
        try {
            return JSON.writeValueAsString(value);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
