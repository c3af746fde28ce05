package io.delayq.core;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.jackson.Jackson;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TraceContextTest {
    private static final String PARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

    @Test
    void aValidTraceparentIsKeptWithItsParts() {
        TraceContext trace = TraceContext.fromHeaders(" " + PARENT + " ", "rojo=00f067aa0ba902b7");
        assertThat(trace).isEqualTo(new TraceContext(PARENT, "rojo=00f067aa0ba902b7"));
        assertThat(trace.traceId()).isEqualTo("0af7651916cd43dd8448eb211c80319c");
        assertThat(trace.parentId()).isEqualTo("b7ad6b7169203331");
        assertThat(trace.flags()).isEqualTo("01");
    }

    @Test
    void anInvalidTraceparentIsIgnoredWithItsTracestate() {
        for (String bad : List.of("", "garbage", PARENT.toUpperCase(), "01" + PARENT.substring(2), "ff" + PARENT.substring(2),
                "00-00000000000000000000000000000000-b7ad6b7169203331-01",
                "00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01",
                PARENT + "-extra", PARENT.substring(0, 54))) {
            assertThat(TraceContext.fromHeaders(bad, "rojo=1")).as(bad).isNull();
            assertThatThrownBy(() -> new TraceContext(bad, null)).as(bad)
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("traceparent must be");
        }
        assertThat(TraceContext.fromHeaders(null, "rojo=1")).isNull();
    }

    @Test
    void aTracestateOverTheLimitIsDroppedButTheTraceparentKept() {
        String longest = "a=" + "x".repeat(TraceContext.MAX_TRACESTATE - 2);
        assertThat(TraceContext.fromHeaders(PARENT, longest).tracestate()).isEqualTo(longest);
        assertThat(TraceContext.fromHeaders(PARENT, longest + "x")).isEqualTo(new TraceContext(PARENT, null));
        assertThat(TraceContext.fromHeaders(PARENT, "a=\u00e9")).isEqualTo(new TraceContext(PARENT, null));
        assertThat(TraceContext.fromHeaders(PARENT, "  ")).isEqualTo(new TraceContext(PARENT, null));
        assertThatThrownBy(() -> new TraceContext(PARENT, longest + "x"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at most 512");
    }

    @Test
    void theTraceIsNotPartOfTheFingerprint() {
        NewJob job = NewJob.delayed("t", "a", "{}", 0, 1);
        assertThat(job.withTrace(new TraceContext(PARENT, null)).fingerprint()).isEqualTo(job.fingerprint());
        assertThat(job.withTrace(new TraceContext(PARENT, null)).withDelivery(Delivery.PUSH).trace())
                .isEqualTo(new TraceContext(PARENT, null));
    }

    @Test
    void aJobsJsonCarriesItsTraceAndReadsBack() throws Exception {
        ObjectMapper mapper = Jackson.newObjectMapper();
        Job job = new Job("t", "a", "{}", 1, JobState.SCHEDULED, 0, 1, null, null, null, false, Delivery.PULL, 1, null,
                null, List.of(), new TraceContext(PARENT, "rojo=1"));
        String json = mapper.writeValueAsString(job);
        assertThat(json).contains("\"trace\":{\"traceparent\":\"" + PARENT + "\",\"tracestate\":\"rojo=1\"}");
        assertThat(mapper.readValue(json, Job.class)).isEqualTo(job);

        Job untraced = new Job("t", "a", "{}", 1, JobState.SCHEDULED, 0, 1, null, null, null, false, Delivery.PULL, 1,
                null, null, List.of());
        String older = mapper.writeValueAsString(untraced);
        assertThat(older).doesNotContain("trace");
        assertThat(mapper.readValue(older, Job.class)).isEqualTo(untraced);
    }
}
