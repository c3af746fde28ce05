package io.delayq.service.delivery;

import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.OptionalLong;

/** Parses an HTTP {@code Retry-After} header (RFC 9110 §10.2.3): delay-seconds or an HTTP-date. */
final class RetryAfter {
    private RetryAfter() {
    }

    /**
     * @param value       the header value, may be null
     * @param nowEpochMs  the current time, for an HTTP-date
     * @return the wait in ms (0 for a date in the past), or empty when absent or malformed
     */
    static OptionalLong millis(String value, long nowEpochMs) {
        if (value == null || value.isBlank()) {
            return OptionalLong.empty();
        }
        String v = value.trim();
        if (v.chars().allMatch(Character::isDigit)) {
            try {
                return OptionalLong.of(Math.multiplyExact(Long.parseLong(v), 1000L));
            } catch (ArithmeticException | NumberFormatException tooLarge) {
                return OptionalLong.of(Long.MAX_VALUE);
            }
        }
        try {
            long at = ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant().toEpochMilli();
            return OptionalLong.of(Math.max(0L, at - nowEpochMs));
        } catch (DateTimeParseException malformed) {
            return OptionalLong.empty();
        }
    }
}
