package io.delayq.service.delivery;

import io.delayq.core.Delivery;
import io.delayq.core.Job;
import io.delayq.core.JobState;
import io.delayq.core.TraceContext;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Context;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.trace.ReadWriteSpan;
import io.opentelemetry.sdk.trace.ReadableSpan;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.SpanProcessor;
import io.opentelemetry.sdk.trace.data.SpanData;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/** The span of a callback attempt and the headers it sends, with a real OpenTelemetry SDK and with the no-op API. */
class CallbackTracingTest {
    private static final String TRACE_ID = "0af7651916cd43dd8448eb211c80319c";
    private static final String PRODUCER_SPAN = "b7ad6b7169203331";
    private static final TraceContext TRACE = new TraceContext("00-" + TRACE_ID + "-" + PRODUCER_SPAN + "-01", "rojo=1");

    private static Job job(TraceContext trace) {
        return new Job("orders", "j1", "{}", 1, JobState.LEASED, 1, 3, null, null, null, false, Delivery.PUSH, 1, null,
                null, List.of(), trace);
    }

    @Test
    void withAnSdkTheAttemptIsAClientSpanUnderTheProducersAndTheCallbackContinuesFromIt() {
        List<SpanData> ended = new CopyOnWriteArrayList<>();
        SdkTracerProvider provider = SdkTracerProvider.builder().addSpanProcessor(new SpanProcessor() {
            @Override
            public void onStart(Context parentContext, ReadWriteSpan span) {
            }

            @Override
            public boolean isStartRequired() {
                return false;
            }

            @Override
            public void onEnd(ReadableSpan span) {
                ended.add(span.toSpanData());
            }

            @Override
            public boolean isEndRequired() {
                return true;
            }
        }).build();
        try (OpenTelemetrySdk sdk = OpenTelemetrySdk.builder().setTracerProvider(provider).build()) {
            CallbackTracing.Attempt attempt = new CallbackTracing(sdk).start(job(TRACE), 2);
            attempt.answered(503);

            SpanData span = ended.get(0);
            assertThat(span.getName()).isEqualTo("delayq deliver orders");
            assertThat(span.getKind()).isEqualTo(SpanKind.CLIENT);
            assertThat(span.getTraceId()).isEqualTo(TRACE_ID);
            assertThat(span.getParentSpanId()).isEqualTo(PRODUCER_SPAN);
            assertThat(span.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
            assertThat(span.getAttributes().asMap().toString()).contains("delayq.attempt=2", "http.response.status_code=503");
            assertThat(attempt.headers()).containsEntry("traceparent", "00-" + TRACE_ID + "-" + span.getSpanId() + "-01")
                    .containsEntry("tracestate", "rojo=1");
        }
    }

    @Test
    void withTheNoopApiTheServiceMakesTheNewParentIdItself() {
        CallbackTracing tracing = new CallbackTracing(OpenTelemetry.noop());
        String first = tracing.start(job(TRACE), 1).headers().get("traceparent");
        String second = tracing.start(job(TRACE), 2).headers().get("traceparent");
        for (String sent : List.of(first, second)) {
            assertThat(TraceContext.fromHeaders(sent, null)).isNotNull();
            assertThat(sent).startsWith("00-" + TRACE_ID + "-").endsWith("-01").doesNotContain(PRODUCER_SPAN);
        }
        assertThat(first).isNotEqualTo(second);
        assertThat(tracing.start(job(TRACE), 1).headers()).containsEntry("tracestate", "rojo=1");
        assertThat(tracing.start(job(null), 1).headers()).isEmpty();
    }
}
