package io.delayq.client;

/**
 * Processes one leased job for a {@link Worker}. Returning normally acks the job; throwing {@link Retry} puts it back
 * to run again after the given delay; any other exception nacks it with the exception's message as the error, and
 * the job's retry policy decides when it runs again (or that it is dead).
 */
@FunctionalInterface
public interface JobHandler {
    void handle(LeasedJob job) throws Exception;
}
