package io.delayq.client;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/**
 * What one tenant may hold and send; each {@code null}: no limit.
 *
 * @param maxPendingJobs   scheduled and leased jobs in its topics together
 * @param enqueuePerSecond jobs accepted per second (a token bucket)
 * @param enqueueBurst     the bucket's size (needs {@code enqueuePerSecond}; default one second's worth)
 * @param maxPayloadBytes  the largest payload of one job
 * @param maxTopics        topics matching its patterns that hold or held jobs
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record TenantQuotas(Long maxPendingJobs, Double enqueuePerSecond, Integer enqueueBurst,
                           Integer maxPayloadBytes, Integer maxTopics) {
    public static TenantQuotas none() {
        return new TenantQuotas(null, null, null, null, null);
    }
}
