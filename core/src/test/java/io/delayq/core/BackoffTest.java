package io.delayq.core;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.jackson.Jackson;
import io.dropwizard.util.Duration;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class BackoffTest {
    private final Random random = new Random(42);
    private final ObjectMapper mapper = Jackson.newObjectMapper();

    @Test
    void aScheduleRepeatsItsLastDelay() {
        Backoff b = new Backoff.Schedule(List.of(Duration.seconds(15), Duration.minutes(3), Duration.minutes(10)));
        assertThat(b.delayMillis(1, random)).isEqualTo(15_000);
        assertThat(b.delayMillis(2, random)).isEqualTo(180_000);
        assertThat(b.delayMillis(3, random)).isEqualTo(600_000);
        assertThat(b.delayMillis(9, random)).isEqualTo(600_000);
        assertThat(b.delayMillis(0, random)).as("attempt numbers start at 1").isEqualTo(15_000);
    }

    @Test
    void anEmptyScheduleIsRefused() {
        assertThatThrownBy(() -> new Backoff.Schedule(List.of())).hasMessageContaining("at least one delay");
    }

    @Test
    void exponentialGrowsAndIsCapped() {
        Backoff b = new Backoff.Exponential(Duration.seconds(1), 2.0, Duration.seconds(10), 0.0);
        assertThat(b.delayMillis(1, random)).isEqualTo(1_000);
        assertThat(b.delayMillis(2, random)).isEqualTo(2_000);
        assertThat(b.delayMillis(4, random)).isEqualTo(8_000);
        assertThat(b.delayMillis(5, random)).isEqualTo(10_000);
        assertThat(b.delayMillis(50, random)).isEqualTo(10_000);
    }

    @Test
    void jitterStaysWithinItsFraction() {
        Backoff b = new Backoff.Exponential(Duration.seconds(10), 1.0, Duration.hours(1), 0.2);
        for (int i = 0; i < 1_000; i++) {
            assertThat(b.delayMillis(1, random)).isBetween(8_000L, 12_000L);
        }
    }

    @Test
    void exponentialRefusesNonsense() {
        assertThatThrownBy(() -> new Backoff.Exponential(Duration.seconds(1), 0.5, Duration.seconds(1), 0))
                .hasMessageContaining("multiplier");
        assertThatThrownBy(() -> new Backoff.Exponential(Duration.seconds(1), 2, Duration.seconds(1), 1.5))
                .hasMessageContaining("jitter");
    }

    @Test
    void nanAndInfinityAreNotNumbersABackoffCanUse() {
        assertThatThrownBy(() -> new Backoff.Exponential(Duration.seconds(1), Double.NaN, Duration.hours(1), 0))
                .hasMessageContaining("multiplier").hasMessageContaining("finite");
        assertThatThrownBy(() -> new Backoff.Exponential(Duration.seconds(1), Double.POSITIVE_INFINITY,
                Duration.hours(1), 0)).hasMessageContaining("multiplier");
        assertThatThrownBy(() -> new Backoff.Exponential(Duration.seconds(1), 2, Duration.hours(1), Double.NaN))
                .hasMessageContaining("jitter");
        // Jackson's default coercion reads the strings "NaN" and "Infinity" as doubles: the constructor is the guard
        assertThatThrownBy(() -> mapper.readValue("{\"type\":\"exponential\",\"initial\":\"1s\",\"multiplier\":\"NaN\","
                + "\"max\":\"1h\"}", Backoff.class)).hasMessageContaining("multiplier");
        assertThatThrownBy(() -> mapper.readValue("{\"type\":\"exponential\",\"initial\":\"1s\",\"multiplier\":2,"
                + "\"max\":\"1h\",\"jitter\":\"NaN\"}", Backoff.class)).hasMessageContaining("jitter");
        assertThatThrownBy(() -> mapper.readValue("{\"type\":\"exponential\",\"initial\":\"1s\",\"multiplier\":1e400,"
                + "\"max\":\"1h\"}", Backoff.class)).hasMessageContaining("multiplier");
    }

    @Test
    void aMissingPartSaysWhatToSend() {
        assertThatThrownBy(() -> mapper.readValue("{\"type\":\"exponential\",\"initial\":\"1s\",\"multiplier\":2}",
                Backoff.class)).hasMessageContaining("\"max\"").hasMessageContaining("e.g.");
        assertThatThrownBy(() -> mapper.readValue("{\"type\":\"exponential\",\"max\":\"1h\",\"multiplier\":2}",
                Backoff.class)).hasMessageContaining("\"initial\"").hasMessageContaining("e.g.");
        assertThatThrownBy(() -> mapper.readValue("{\"type\":\"exponential\",\"initial\":\"1s\",\"max\":\"1h\"}",
                Backoff.class)).hasMessageContaining("\"multiplier\" is 0.0").hasMessageContaining("e.g.");
        assertThatThrownBy(() -> mapper.readValue("{\"type\":\"schedule\"}", Backoff.class))
                .hasMessageContaining("\"delays\"").hasMessageContaining("e.g.");
        assertThatThrownBy(() -> mapper.readValue("{\"type\":\"schedule\",\"delays\":[\"1s\",null]}", Backoff.class))
                .hasMessageContaining("delays[1]");
    }

    @Test
    void readsAndWritesBothJsonForms() throws Exception {
        Backoff schedule = mapper.readValue("{\"type\":\"schedule\",\"delays\":[\"15s\",\"3m\"]}", Backoff.class);
        assertThat(schedule).isEqualTo(new Backoff.Schedule(List.of(Duration.seconds(15), Duration.minutes(3))));
        Backoff exp = mapper.readValue(
                "{\"type\":\"exponential\",\"initial\":\"1s\",\"multiplier\":2.0,\"max\":\"1h\",\"jitter\":0.2}", Backoff.class);
        assertThat(exp).isEqualTo(Backoff.defaultBackoff());
        assertThat(mapper.readValue(mapper.writeValueAsString(exp), Backoff.class)).isEqualTo(exp);
        assertThat(mapper.readValue(mapper.writeValueAsString(schedule), Backoff.class)).isEqualTo(schedule);
    }

    @Test
    void aRetryPolicyStopsAtMaxAttempts() {
        RetryPolicy policy = new RetryPolicy(3, new Backoff.Schedule(List.of(Duration.seconds(1))));
        assertThat(policy.nextDelayMillis(1, random)).isEqualTo(1_000);
        assertThat(policy.nextDelayMillis(2, random)).isEqualTo(1_000);
        assertThat(policy.nextDelayMillis(3, random)).isEqualTo(-1);
        assertThat(policy.nextDelayMillis(4, random)).isEqualTo(-1);
        assertThat(RetryPolicy.defaults().maxAttempts()).isEqualTo(RetryPolicy.DEFAULT_MAX_ATTEMPTS);
        assertThatThrownBy(() -> new RetryPolicy(0, Backoff.defaultBackoff())).hasMessageContaining("maxAttempts");
    }
}
