package io.delayq.client;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

import java.time.Instant;
import java.util.List;

/**
 * A token just made: {@code token} is its value, shown this once (the service keeps only its SHA-256).
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record CreatedToken(String name, String tenant, List<String> roles, Instant createdAt, Instant expiresAt,
                           String token) {
    /** Never the value. */
    @Override
    public String toString() {
        return "CreatedToken[" + (tenant == null ? "" : tenant + "/") + name + " " + roles + "]";
    }
}
