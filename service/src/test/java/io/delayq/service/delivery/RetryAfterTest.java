package io.delayq.service.delivery;

import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

import static org.assertj.core.api.Assertions.assertThat;

class RetryAfterTest {
    @Test
    void readsSecondsAndHttpDates() {
        long now = Instant.parse("2026-11-22T10:00:00Z").toEpochMilli();
        assertThat(RetryAfter.millis("120", now)).hasValue(120_000);
        assertThat(RetryAfter.millis(" 0 ", now)).hasValue(0);
        String date = DateTimeFormatter.RFC_1123_DATE_TIME.format(Instant.parse("2026-11-22T10:00:30Z").atZone(ZoneOffset.UTC));
        assertThat(RetryAfter.millis(date, now)).hasValue(30_000);
        assertThat(RetryAfter.millis("Sun, 22 Nov 2026 09:00:00 GMT", now)).hasValue(0);
        assertThat(RetryAfter.millis("99999999999999999999", now)).hasValue(Long.MAX_VALUE);
    }

    @Test
    void ignoresAbsentOrMalformedValues() {
        assertThat(RetryAfter.millis(null, 0)).isEmpty();
        assertThat(RetryAfter.millis("", 0)).isEmpty();
        assertThat(RetryAfter.millis("soon", 0)).isEmpty();
        assertThat(RetryAfter.millis("-5", 0)).isEmpty();
    }
}
