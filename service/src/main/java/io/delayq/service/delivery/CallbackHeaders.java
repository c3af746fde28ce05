package io.delayq.service.delivery;

import io.delayq.core.Callback;
import io.delayq.core.Job;
import io.delayq.core.Lease;

import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The headers of a callback request: the callback's own, then delayq's, which win: {@code Delayq-Id},
 * {@code Delayq-Topic}, {@code Delayq-Attempt} (1-based), {@code Delayq-Run-At} (RFC 3339) and
 * {@code Delayq-Signature} over the body ({@link Signatures}).
 */
final class CallbackHeaders {
    private static final DateTimeFormatter RFC_3339 = DateTimeFormatter.ISO_INSTANT;

    private final Signatures signatures;

    CallbackHeaders(Signatures signatures) {
        this.signatures = signatures;
    }

    Map<String, String> of(Lease lease, Callback callback, byte[] body) {
        Job job = lease.job();
        Map<String, String> headers = new LinkedHashMap<>(callback.headers());
        headers.put("Delayq-Id", job.id());
        headers.put("Delayq-Topic", job.topic());
        headers.put("Delayq-Attempt", Integer.toString(lease.attempt()));
        headers.put("Delayq-Run-At", RFC_3339.format(Instant.ofEpochMilli(job.runAt())));
        headers.put(Signatures.HEADER, signatures.header(System.currentTimeMillis() / 1_000, body));
        return headers;
    }
}
