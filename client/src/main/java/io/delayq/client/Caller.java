package io.delayq.client;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

import java.util.List;

/**
 * Who the client's token is ({@code GET /v1/me}).
 *
 * @param name   the token's name; one made through the API is {@code <tenant>/<name>}
 * @param roles  among producer, consumer, admin, viewer
 * @param tenant the tenant whose topics the token sees; {@code null} for an operator's token (every topic)
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record Caller(String name, List<String> roles, String tenant) {
    public Caller {
        roles = roles == null ? List.of() : List.copyOf(roles);
    }
}
