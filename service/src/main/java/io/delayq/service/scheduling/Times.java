package io.delayq.service.scheduling;

import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;

/** RFC 3339 timestamps of the API. */
final class Times {
    private Times() {
    }

    static long parseRfc3339(String field, String text) {
        try {
            return OffsetDateTime.parse(text, DateTimeFormatter.ISO_OFFSET_DATE_TIME).toInstant().toEpochMilli();
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException(field + " '" + text + "' is not an RFC 3339 timestamp; use e.g. "
                    + "\"2030-01-31T09:30:00Z\" or \"2030-01-31T10:30:00+01:00\"");
        }
    }
}
