package io.delayq.core;

/**
 * Who takes a job when it falls due. Decided when the job is scheduled, and kept apart in the store so that the push
 * engine never takes a job a pulling consumer is waiting for, and the other way round.
 */
public enum Delivery {
    /** The delivery engine takes it: POSTs it to a callback, or broadcasts it to event subscribers. */
    PUSH,
    /** It waits for a consumer to lease it over the pull API. */
    PULL
}
