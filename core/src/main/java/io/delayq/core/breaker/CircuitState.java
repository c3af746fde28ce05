package io.delayq.core.breaker;

/** Where an origin's circuit stands. */
public enum CircuitState {
    /** Callbacks flow; consecutive failures are counted. */
    CLOSED,
    /** Callbacks are held; one probe per interval tests the origin. */
    OPEN
}
