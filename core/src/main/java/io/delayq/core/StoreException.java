package io.delayq.core;

/** A store operation that did not happen, with the reason as a {@link StoreStatus}. */
public class StoreException extends RuntimeException {
    private final StoreStatus status;

    public StoreException(StoreStatus status, String message) {
        super(message);
        this.status = status;
    }

    public StoreException(StoreStatus status, String message, Throwable cause) {
        super(message, cause);
        this.status = status;
    }

    public StoreStatus status() {
        return status;
    }

    /** Throws for any status but {@link StoreStatus#OK}, with a message naming the job. */
    public static void check(StoreStatus status, JobRef ref, String operation) {
        switch (status) {
            case OK -> { }
            case NOT_FOUND -> throw new StoreException(status, "job " + ref + " does not exist");
            case CONFLICT -> throw new StoreException(status, "job " + ref + " already exists with different content");
            case STALE_LEASE -> throw new StoreException(status,
                    "the lease token for job " + ref + " is not current: the lease expired or the job was acknowledged");
            case NOT_IN_STATE -> throw new StoreException(status, "job " + ref + " cannot be " + operation + " in its current state");
            case UNAVAILABLE -> throw new StoreException(status, "the job store is unavailable");
        }
    }
}
