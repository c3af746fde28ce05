package io.delayq.core;

/**
 * The outcome of one store operation. Every store maps its own codes to these, in one place, so that what an HTTP
 * client sees does not depend on the backend.
 */
public enum StoreStatus {
    /** Done. */
    OK,
    /** No such job (never existed, or its finished record has been dropped). */
    NOT_FOUND,
    /** The id is taken by a job with different content. */
    CONFLICT,
    /** The lease token is not the job's current one: the lease expired and the job moved on. */
    STALE_LEASE,
    /** The job exists but its state does not allow the operation (e.g. cancelling a finished job). */
    NOT_IN_STATE,
    /** The store could not be reached or answered with an error. */
    UNAVAILABLE
}
