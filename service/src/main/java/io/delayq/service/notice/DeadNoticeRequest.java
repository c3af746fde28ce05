package io.delayq.service.notice;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonRawValue;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delayq.core.Attempt;
import io.delayq.core.Callback;
import io.delayq.core.Job;
import io.delayq.core.TraceContext;
import io.delayq.core.archive.DeadLetter;
import io.delayq.service.delivery.Signatures;
import io.delayq.service.delivery.TopicSigners;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The request of one dead notice: a JSON body saying which job died and why, and the headers that sign it.
 *
 * <p>Body: {@code topic}, {@code id}, {@code attempts}, {@code maxAttempts}, {@code lastError}, {@code lastStatus}
 * (the HTTP status of the job's last attempt, when it got one), {@code deadAt} (RFC 3339), {@code deadLetter} (the
 * dead letter's key, for the admin API), {@code cause} (why it died: {@code ATTEMPTS_EXHAUSTED}, {@code EXPIRED},
 * {@code NO_RETRY}, … as {@link io.delayq.core.DeadCause} names them) and {@code payload} (the job's payload,
 * verbatim).
 *
 * <p>Headers: the target's own, then delayq's, which win: {@code Delayq-Event: dead}, {@code Delayq-Id},
 * {@code Delayq-Topic}, {@code Delayq-Notice-Attempt} (1-based), {@code Delayq-Signature} as a callback's but of kind
 * {@code dead} and over the notice attempt ({@link Signatures}), with the secrets the job's callbacks are signed with
 * (its topic's tenant's, else {@code delivery.signingSecret}: {@link TopicSigners}), and the {@code traceparent} /
 * {@code tracestate} the job was enqueued with, when it was (the notice continues the producer's trace).
 */
final class DeadNoticeRequest {
    static final String EVENT = "Delayq-Event";
    static final String DEAD = "dead";
    static final String NOTICE_ATTEMPT = "Delayq-Notice-Attempt";

    private static final ObjectMapper JSON = new ObjectMapper();

    private final TopicSigners signers;

    /** Every notice signed with one signer. */
    DeadNoticeRequest(Signatures signatures) {
        this(TopicSigners.serviceOnly(signatures));
    }

    /** Each notice signed with the secrets of its topic's owner. */
    DeadNoticeRequest(TopicSigners signers) {
        this.signers = signers;
    }

    /** The body of a dead letter's notice. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record Body(String topic, String id, int attempts, int maxAttempts, String lastError, Integer lastStatus,
                String deadAt, String deadLetter, @JsonRawValue @JsonInclude(JsonInclude.Include.ALWAYS) String payload,
                String cause) {
    }

    static Body bodyOf(DeadLetter letter) {
        Job job = letter.job();
        return new Body(job.topic(), job.id(), job.attempts(), job.maxAttempts(), job.lastError(),
                lastStatus(job.history()), Instant.ofEpochMilli(letter.deadAt()).toString(), letter.key(),
                job.payload(), job.deadCause() == null ? null : job.deadCause().name());
    }

    byte[] body(DeadLetter letter) {
        try {
            return JSON.writeValueAsBytes(bodyOf(letter));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a dead notice body could not be written: " + e.getMessage(), e);
        }
    }

    /** @param noticeAttempt the notice's attempt number (1 for the first), not the job's */
    Map<String, String> headers(DeadLetter letter, Callback target, int noticeAttempt, byte[] body) {
        Job job = letter.job();
        Map<String, String> headers = new LinkedHashMap<>(target.headers());
        headers.put(EVENT, Signatures.Kind.DEAD_NOTICE.word());
        headers.put("Delayq-Id", job.id());
        headers.put("Delayq-Topic", job.topic());
        headers.put(NOTICE_ATTEMPT, Integer.toString(noticeAttempt));
        headers.put(Signatures.HEADER, signers.forTopic(job.topic()).header(Signatures.Kind.DEAD_NOTICE, job.topic(), job.id(),
                noticeAttempt, System.currentTimeMillis() / 1_000, body));
        TraceContext trace = job.trace();
        if (trace != null && trace.traceparent() != null) {
            headers.put("traceparent", trace.traceparent());
            if (trace.tracestate() != null) {
                headers.put("tracestate", trace.tracestate());
            }
        }
        return headers;
    }

    /** The HTTP status of the job's last attempt (holds are no attempts), or null when it got no answer. */
    private static Integer lastStatus(List<Attempt> history) {
        for (int i = history.size() - 1; i >= 0; i--) {
            Attempt attempt = history.get(i);
            if (!attempt.isHeld()) {
                return attempt.httpStatus();
            }
        }
        return null;
    }
}
