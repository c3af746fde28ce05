package io.delayq.core.archive;

import com.fasterxml.jackson.annotation.JsonInclude;

import java.util.Objects;

/**
 * Where the notice of a job's death stands, kept on its {@link DeadLetter}. The target is the dead letter's
 * {@code job().onDead()} (the job's own, or its topic's as the archiver resolved it when the letter was written). The
 * archive writes a letter whose job has a target with {@link #pending} notice due at once; the service's notice sender
 * then claims, sends and records it through {@link JobArchive#recordNotice}. Times are epoch ms by the store's clock.
 *
 * @param state         pending (to be sent, or being sent), delivered, or failed (attempts used up)
 * @param attempts      sending attempts made (the one in progress included)
 * @param nextAttemptAt when a pending notice may be claimed next; for one being sent, when the claim lapses (a sender
 *                      that died mid-send is covered by another after it)
 * @param deliveredAt   when the target answered 2xx, or {@code null}
 * @param lastError     the last attempt's failure, or {@code null}
 * @param lastStatus    the HTTP status of the last failed attempt that got an answer, or {@code null}
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record DeadNotice(State state, int attempts, long nextAttemptAt, Long deliveredAt, String lastError,
                         Integer lastStatus) {

    public enum State { PENDING, DELIVERED, FAILED }

    public DeadNotice {
        Objects.requireNonNull(state, "state");
    }

    /** A notice not yet tried, due at {@code at}. */
    public static DeadNotice pending(long at) {
        return new DeadNotice(State.PENDING, 0, at, null, null, null);
    }

    /** This notice claimed by a sender for one more attempt, which lapses at {@code claimLapsesAt}. */
    public DeadNotice claimed(long claimLapsesAt) {
        return new DeadNotice(State.PENDING, attempts + 1, claimLapsesAt, deliveredAt, lastError, lastStatus);
    }

    /** This notice delivered at {@code at}. */
    public DeadNotice delivered(long at) {
        return new DeadNotice(State.DELIVERED, attempts, 0, at, null, null);
    }

    /** The attempt failed: tried again at {@code retryAt}, or, when {@code retryAt < 0}, given up for good. */
    public DeadNotice failed(String error, Integer status, long retryAt) {
        return retryAt < 0
                ? new DeadNotice(State.FAILED, attempts, 0, null, error, status)
                : new DeadNotice(State.PENDING, attempts, retryAt, null, error, status);
    }

    public boolean isPending() {
        return state == State.PENDING;
    }
}
