package io.delayq.service.delivery;

import io.delayq.core.Callback;
import io.delayq.core.Job;
import io.delayq.core.Lease;

import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The headers of a callback request: the callback's own, then delayq's, which win: {@code Delayq-Event: callback},
 * {@code Delayq-Id},
 * {@code Delayq-Topic}, {@code Delayq-Attempt} (1-based), {@code Delayq-Run-At} (RFC 3339), {@code Delayq-Lease-Token}
 * (for a receiver that answers 202 and confirms later),
 * {@code Delayq-Signature} over the kind, topic, id, attempt, time and body ({@link Signatures}) and, for a job enqueued with a trace context, the
 * attempt's {@code traceparent} / {@code tracestate} ({@link CallbackTracing}).
 */
final class CallbackHeaders {
    /** The attempt's lease token: a receiver that answers 202 acks or nacks with it later; good for this attempt only. */
    static final String LEASE_TOKEN = "Delayq-Lease-Token";
    private static final DateTimeFormatter RFC_3339 = DateTimeFormatter.ISO_INSTANT;

    private CallbackHeaders() {
    }

    /**
     * @param signer the secrets of the topic's owner ({@link TopicSigners})
     * @param trace  the attempt's W3C trace headers ({@link CallbackTracing.Attempt#headers()}), maybe none
     */
    static Map<String, String> of(Lease lease, Callback callback, byte[] body, Signatures signer,
                                  Map<String, String> trace) {
        Job job = lease.job();
        Map<String, String> headers = new LinkedHashMap<>(callback.headers());
        headers.put(Signatures.EVENT, Signatures.Kind.CALLBACK.word());
        headers.put("Delayq-Id", job.id());
        headers.put("Delayq-Topic", job.topic());
        headers.put("Delayq-Attempt", Integer.toString(lease.attempt()));
        headers.put("Delayq-Run-At", RFC_3339.format(Instant.ofEpochMilli(job.runAt())));
        headers.put(LEASE_TOKEN, lease.token().text());
        headers.put(Signatures.HEADER, signer.header(Signatures.Kind.CALLBACK, job.topic(), job.id(),
                lease.attempt(), System.currentTimeMillis() / 1_000, body));
        headers.putAll(trace);
        return headers;
    }
}
