package io.delayq.service.schedules;

import io.delayq.service.errors.InvalidFieldsException;

import java.util.Locale;

/** What a schedule does with fires it missed (not enqueued within {@code misfireAfter} of their time). */
public enum Misfire {
    /** Drop them: the next fire is the next on time. */
    SKIP,
    /** One job for all of them, enqueued at once (its history entry says how many it stands for). */
    ONCE;

    static Misfire parse(String text) {
        if (text == null) {
            return SKIP;
        }
        return switch (text.toLowerCase(Locale.ROOT)) {
            case "skip" -> SKIP;
            case "once" -> ONCE;
            default -> throw new InvalidFieldsException("misfire " + io.delayq.core.JobRules.quote(text)
                    + " is not one of \"skip\" and \"once\"", "misfire");
        };
    }

    String wire() {
        return name().toLowerCase(Locale.ROOT);
    }
}
