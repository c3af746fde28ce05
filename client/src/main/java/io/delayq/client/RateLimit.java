package io.delayq.client;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * A topic's rate limit ({@link TopicSettingsUpdate#rateLimit}, {@link TopicSettings#rateLimit}): at most
 * {@code perSecond} deliveries and pull leases a second over all service instances together, up to {@code burst} at
 * once after a quiet spell. Jobs over the limit wait in the store without using an attempt.
 *
 * @param perSecond more than 0; fractions allowed ({@code 0.5}: one every two seconds)
 * @param burst     1 or more; {@code null} when sending: a tenth of a second's worth, at least 1
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record RateLimit(double perSecond, Integer burst) {
    public static RateLimit of(double perSecond, int burst) {
        return new RateLimit(perSecond, burst);
    }
}
