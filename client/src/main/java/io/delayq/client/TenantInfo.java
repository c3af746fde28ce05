package io.delayq.client;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

import java.util.List;

/**
 * A tenant as the service shows it: signing secrets by id only.
 *
 * @param fromConfig declared in the service's configuration: read-only through the API
 * @param use        its topics and pending jobs now
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record TenantInfo(String name, List<String> topics, TenantQuotas quotas, int weight,
                         List<SecretId> signingSecrets, boolean fromConfig, Use use) {

    @JsonIgnoreProperties(ignoreUnknown = true)
    public record SecretId(String id) {
    }

    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Use(int topics, long pendingJobs) {
    }
}
