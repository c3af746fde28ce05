package io.delayq.core.tenant;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * What one tenant may hold and send. Every field may be {@code null}: no limit.
 *
 * @param maxPendingJobs   scheduled and leased jobs in the tenant's topics together
 * @param enqueuePerSecond jobs accepted per second (a token bucket refilled at this rate)
 * @param enqueueBurst     the bucket's size: how many jobs may be accepted at once after a quiet period; with a rate
 *                         and no burst, one second's worth (at least 1)
 * @param maxPayloadBytes  the largest payload of one job, under the service's own {@code limits.maxPayloadBytes}
 * @param maxTopics        topics matching the tenant's patterns that hold or held jobs
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record TenantQuotas(Long maxPendingJobs, Double enqueuePerSecond, Integer enqueueBurst, Integer maxPayloadBytes,
                           Integer maxTopics) {

    public TenantQuotas {
        positive("maxPendingJobs", maxPendingJobs);
        positive("maxPayloadBytes", maxPayloadBytes);
        positive("maxTopics", maxTopics);
        positive("enqueueBurst", enqueueBurst);
        if (enqueuePerSecond != null && !(enqueuePerSecond > 0 && enqueuePerSecond <= 1_000_000)) {
            throw new IllegalArgumentException("quotas.enqueuePerSecond must be more than 0 and at most 1000000; it was "
                    + enqueuePerSecond);
        }
        if (enqueueBurst != null && enqueuePerSecond == null) {
            throw new IllegalArgumentException("quotas.enqueueBurst needs quotas.enqueuePerSecond: a burst is the size"
                    + " of the bucket that rate refills");
        }
    }

    public static TenantQuotas none() {
        return new TenantQuotas(null, null, null, null, null);
    }

    /** The bucket size of the enqueue rate: the burst, else one second's worth, at least 1. */
    public int effectiveBurst() {
        if (enqueueBurst != null) {
            return enqueueBurst;
        }
        return enqueuePerSecond == null ? 0 : (int) Math.max(1, Math.ceil(enqueuePerSecond));
    }

    private static void positive(String field, Number value) {
        if (value != null && value.longValue() <= 0) {
            throw new IllegalArgumentException("quotas." + field + " must be more than 0 (leave it out for no limit);"
                    + " it was " + value);
        }
    }
}
