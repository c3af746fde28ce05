package io.delayq.client;

/**
 * Called by a {@link Worker} when its own failure made a job dead: the handler threw on the job's
 * {@linkplain LeasedJob#isLastAttempt() last attempt} (a {@link Retry} included: the service counts a put-back as the
 * attempt, so on the last one it ends the job), and the service accepted the nack.
 * The place for what the application does when a job gives up for good (mark the order "notification failed", page
 * someone), in the worker's own code. The service also sends the job's dead notice, if it has an {@code onDead} target;
 * this handler runs whether or not it has one.
 *
 * <p>It runs on the handler's thread, after the nack, at most once per job and worker. Whatever it throws is logged
 * and changes nothing: the job is dead either way.
 */
@FunctionalInterface
public interface DeadHandler {
    /**
     * @param job   the job as leased for its last attempt
     * @param error what the handler threw (a {@link Retry} too), which the nack recorded as the job's last error
     */
    void onDead(LeasedJob job, Throwable error) throws Exception;
}
