package io.delayq.service.deadletters;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.delayq.core.DeadCause;
import io.delayq.core.archive.DeadLetter;
import io.delayq.core.archive.DeadNotice;
import io.delayq.core.archive.FailureSignature;
import io.delayq.service.api.JobView;

import java.time.Instant;
import java.util.List;

/**
 * A dead letter as the admin API shows it. Times are RFC 3339 strings in UTC.
 *
 * @param topic       the job's topic
 * @param id          the job's id
 * @param key         the archive's id of this death ({@code <topic>/<id>/<createdAt>})
 * @param deadAt      when it died
 * @param attempts    attempts it made
 * @param lastError   why the last attempt failed
 * @param replayCount how many times it was replayed
 * @param replays     each replay: when, and the id of the job it scheduled
 * @param job         the whole job: payload, callback, options and the history of its attempts
 * @param signature   why it died, normalised: the failure group it belongs to
 * @param notice      where its dead notice to {@code job.onDead} stands; absent when it had no onDead target
 * @param cause       why it died ({@code ATTEMPTS_EXHAUSTED}, {@code EXPIRED}, {@code NO_RETRY}, …); a letter archived
 *                    before causes existed shows {@code ATTEMPTS_EXHAUSTED}
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record DeadLetterView(
        String topic,
        String id,
        String key,
        String deadAt,
        int attempts,
        String lastError,
        int replayCount,
        List<ReplayView> replays,
        JobView job,
        SignatureView signature,
        NoticeView notice,
        DeadCause cause) {

    /**
     * The dead notice of this death, sent to {@code job.onDead} (the job's own target, or its topic's when it died).
     *
     * @param state         PENDING (to be sent, being sent, or waiting for its next attempt), DELIVERED or FAILED
     *                      (every attempt failed)
     * @param attempts      attempts made so far
     * @param nextAttemptAt while PENDING: when the next attempt may start (or a claimed one lapses)
     * @param deliveredAt   when the target answered 2xx
     * @param lastError     why the last attempt failed
     * @param lastStatus    the HTTP status of the last failed attempt, when it got an answer
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record NoticeView(DeadNotice.State state, int attempts, String nextAttemptAt, String deliveredAt,
                             String lastError, Integer lastStatus) {
        static NoticeView of(DeadNotice notice) {
            return notice == null ? null : new NoticeView(notice.state(), notice.attempts(),
                    notice.isPending() ? time(notice.nextAttemptAt()) : null,
                    notice.deliveredAt() == null ? null : time(notice.deliveredAt()), notice.lastError(),
                    notice.lastStatus());
        }
    }

    /**
     * One replay.
     *
     * @param number     1 for the first
     * @param at         when it was replayed
     * @param newJobId   the job it scheduled, in the same topic
     * @param requestKey the {@code Idempotency-Key} of the request, if it had one
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record ReplayView(int number, String at, String newJobId, String requestKey) {
        static ReplayView of(DeadLetter.Replay replay) {
            return replay == null ? null : new ReplayView(replay.number(), time(replay.at()), replay.newJobId(),
                    replay.requestKey());
        }
    }

    public static DeadLetterView of(DeadLetter letter) {
        return new DeadLetterView(letter.job().topic(), letter.job().id(), letter.key(), time(letter.deadAt()),
                letter.job().attempts(), letter.job().lastError(), letter.replayCount(),
                letter.replays().stream().map(ReplayView::of).toList(), JobView.of(letter.job()),
                SignatureView.of(FailureSignature.of(letter.job())), NoticeView.of(letter.notice()),
                letter.job().deadCause());
    }

    static String time(long epochMs) {
        return Instant.ofEpochMilli(epochMs).toString();
    }
}
