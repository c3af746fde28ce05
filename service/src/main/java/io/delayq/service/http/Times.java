package io.delayq.service.http;

import io.delayq.core.JobRules;

import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.regex.Pattern;

/** RFC 3339 timestamps of the API. */
public final class Times {
    /**
     * RFC 3339 years have four digits. {@code ISO_OFFSET_DATE_TIME} alone also reads signed years of up to nine
     * digits, whose epoch milliseconds do not fit a long ({@code +292278995-01-01T00:00:00Z}).
     */
    private static final Pattern FOUR_DIGIT_YEAR = Pattern.compile("\\d{4}-.*", Pattern.DOTALL);

    private Times() {
    }

    public static long parseRfc3339(String field, String text) {
        try {
            if (!FOUR_DIGIT_YEAR.matcher(text).matches()) {
                throw new DateTimeParseException("the year must have four digits", text, 0);
            }
            return OffsetDateTime.parse(text, DateTimeFormatter.ISO_OFFSET_DATE_TIME).toInstant().toEpochMilli();
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException(field + " " + JobRules.quote(text) + " is not an RFC 3339 timestamp; "
                    + "use e.g. \"2030-01-31T09:30:00Z\" or \"2030-01-31T10:30:00+01:00\"");
        }
    }
}
