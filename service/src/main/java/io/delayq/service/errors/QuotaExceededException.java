package io.delayq.service.errors;

/**
 * A tenant's quota refused a request: {@code 429 quota-exceeded} with {@code Retry-After} (or {@code 413} for a payload
 * beyond the tenant's {@code maxPayloadBytes}, which waiting does not help), naming the quota, its limit and the
 * current use. An {@link IllegalArgumentException} so that a batch can carry it as one item's refusal.
 */
public final class QuotaExceededException extends IllegalArgumentException {
    private final String tenant;
    private final String quota;
    private final Number limit;
    private final Number current;
    private final int status;
    private final long retryAfterSeconds;

    /**
     * @param retryAfterSeconds when to try again (at least 1) for a 429; ignored for a 413
     */
    public QuotaExceededException(String tenant, String quota, Number limit, Number current, int status,
                                  long retryAfterSeconds, String message) {
        super(message);
        this.tenant = tenant;
        this.quota = quota;
        this.limit = limit;
        this.current = current;
        this.status = status;
        this.retryAfterSeconds = Math.max(1, retryAfterSeconds);
    }

    public int status() {
        return status;
    }

    /** Whether waiting helps: a 429 (pending jobs, enqueue rate, topics), not a 413 (payload). */
    public boolean retryable() {
        return status == 429;
    }

    public long retryAfterSeconds() {
        return retryAfterSeconds;
    }

    public String tenant() {
        return tenant;
    }

    public String quota() {
        return quota;
    }

    public Problem problem() {
        return Problem.of("quota-exceeded", status, getMessage()).with("tenant", tenant).with("quota", quota)
                .with("limit", limit).with("current", current);
    }
}
