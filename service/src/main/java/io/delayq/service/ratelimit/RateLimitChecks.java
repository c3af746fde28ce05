package io.delayq.service.ratelimit;

import io.delayq.core.ratelimit.Rate;

/** The rules a rate limit must pass before it is stored or configured; messages name the field. */
public final class RateLimitChecks {
    private RateLimitChecks() {
    }

    /**
     * The rate to store; {@code null} stays {@code null} (no limit).
     *
     * @param field the field's name in messages, e.g. {@code rateLimit}
     * @throws IllegalArgumentException naming {@code <field>.perSecond} or {@code <field>.burst}
     */
    public static Rate check(String field, RateLimitSpec spec) {
        if (spec == null) {
            return null;
        }
        Double perSecond = spec.perSecond();
        if (perSecond == null) {
            throw new IllegalArgumentException(field + ".perSecond is required, e.g. {\"perSecond\": 50, \"burst\": 10}");
        }
        if (!(perSecond > 0 && perSecond <= Rate.MAX_PER_SECOND)) {
            throw new IllegalArgumentException(field + ".perSecond is " + perSecond + "; it must be more than 0 and at"
                    + " most " + (long) Rate.MAX_PER_SECOND);
        }
        int burst;
        if (spec.burst() == null) {
            burst = (int) Math.max(1, Math.ceil(perSecond / 10));
        } else {
            burst = spec.burst();
            if (burst < 1 || burst > Rate.MAX_PER_SECOND) {
                throw new IllegalArgumentException(field + ".burst is " + burst + "; it must be 1 to "
                        + (long) Rate.MAX_PER_SECOND);
            }
        }
        return new Rate(perSecond, burst);
    }
}
