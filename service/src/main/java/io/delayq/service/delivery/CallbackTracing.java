package io.delayq.service.delivery;

import io.delayq.core.Job;
import io.delayq.core.TraceContext;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;

import java.security.SecureRandom;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * The trace of one callback attempt: a CLIENT span {@code delayq deliver <topic>} whose parent is the trace context
 * the producer enqueued the job with, and the {@code traceparent} / {@code tracestate} the callback receives, so that
 * the producer's trace continues across the delay.
 *
 * <p>Through the OpenTelemetry API only: without an SDK or the Java agent the API is a no-op, whose "span" is the
 * parent itself. The trace must still continue with a span of its own, so the attempt then gets a new random parent
 * id under the producer's trace id and flags: the receiver sees the same trace either way, and a new parent id per
 * attempt. A job enqueued without a trace context is sent without one (no trace is invented for it).
 */
final class CallbackTracing {
    static final String TRACEPARENT = "traceparent";
    static final String TRACESTATE = "tracestate";
    private static final AttributeKey<String> TOPIC = AttributeKey.stringKey("messaging.destination.name");
    private static final AttributeKey<String> SYSTEM = AttributeKey.stringKey("messaging.system");
    private static final AttributeKey<String> JOB_ID = AttributeKey.stringKey("messaging.message.id");
    private static final AttributeKey<Long> ATTEMPT = AttributeKey.longKey("delayq.attempt");
    private static final AttributeKey<Long> HTTP_STATUS = AttributeKey.longKey("http.response.status_code");

    private static final TextMapGetter<TraceContext> STORED = new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(TraceContext carrier) {
            return List.of(TRACEPARENT, TRACESTATE);
        }

        @Override
        public String get(TraceContext carrier, String key) {
            if (carrier == null) {
                return null;
            }
            return switch (key) {
                case TRACEPARENT -> carrier.traceparent();
                case TRACESTATE -> carrier.tracestate();
                default -> null;
            };
        }
    };

    private final Tracer tracer;
    private final SecureRandom random = new SecureRandom();

    CallbackTracing(OpenTelemetry openTelemetry) {
        this.tracer = openTelemetry.getTracer("io.delayq.service");
    }

    /** One attempt's span and the trace headers of its request ({@code traceparent} absent when the job has none). */
    record Attempt(Span span, Map<String, String> headers) {
        void answered(int status) {
            span.setAttribute(HTTP_STATUS, (long) status);
            if (status < 200 || status > 299) {
                span.setStatus(StatusCode.ERROR, "HTTP " + status);
            }
            span.end();
        }

        void failed(String error) {
            span.setStatus(StatusCode.ERROR, error);
            span.end();
        }

        /** The context to make current while the request is sent, so that an instrumented HTTP client nests in it. */
        Context context() {
            return Context.root().with(span);
        }
    }

    Attempt start(Job job, int attempt) {
        TraceContext stored = job.trace();
        if (stored == null) {
            return new Attempt(Span.getInvalid(), Map.of());
        }
        Context parent = W3CTraceContextPropagator.getInstance().extract(Context.root(), stored, STORED);
        Span span = tracer.spanBuilder("delayq deliver " + job.topic())
                .setParent(parent)
                .setSpanKind(SpanKind.CLIENT)
                .setAttribute(SYSTEM, "delayq")
                .setAttribute(TOPIC, job.topic())
                .setAttribute(JOB_ID, job.id())
                .setAttribute(ATTEMPT, (long) attempt)
                .startSpan();
        Map<String, String> headers = new HashMap<>(2);
        if (span.getSpanContext().isValid() && !span.getSpanContext().getSpanId().equals(stored.parentId())) {
            // an SDK (or the agent) made a span of its own: its context is what the callback continues
            W3CTraceContextPropagator.getInstance().inject(Context.root().with(span), headers, Map::put);
        } else {
            // the no-op API hands back the parent: continue the trace under a parent id of our own
            headers.put(TRACEPARENT, "00-" + stored.traceId() + "-" + newSpanId() + "-" + stored.flags());
            if (stored.tracestate() != null) {
                headers.put(TRACESTATE, stored.tracestate());
            }
        }
        return new Attempt(span, headers);
    }

    private String newSpanId() {
        byte[] id = new byte[8];
        do {
            random.nextBytes(id);
        } while (isZero(id)); // W3C: an all-zero parent id is invalid
        return HexFormat.of().formatHex(id);
    }

    private static boolean isZero(byte[] bytes) {
        for (byte b : bytes) {
            if (b != 0) {
                return false;
            }
        }
        return true;
    }
}
