package io.delayq.client;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

import java.time.Instant;
import java.util.List;

/**
 * An API token as listed: never its value.
 *
 * @param tenant     {@code null}: an operators' token
 * @param lastUsedAt written at most once a minute; {@code null}: not used (or a token of the configuration)
 * @param active     neither expired nor revoked
 * @param fromConfig declared in the service's configuration: read-only
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record TokenInfo(String name, String tenant, List<String> roles, Instant createdAt, Instant expiresAt,
                        Instant revokedAt, Instant lastUsedAt, boolean active, boolean fromConfig) {
}
