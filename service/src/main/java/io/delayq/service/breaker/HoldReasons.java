package io.delayq.service.breaker;

import java.time.Instant;

/** The history entry of a held job: why it was postponed and until when (RFC 3339, by the store's clock). */
final class HoldReasons {
    private HoldReasons() {
    }

    static String open(String origin, Long openedAt, long untilMs) {
        return "circuit open for " + origin + " since " + time(openedAt) + ": held until " + time(untilMs);
    }

    static String releasing(String origin, Long closedAt, int perSecond, long untilMs) {
        return "circuit for " + origin + " closed at " + time(closedAt) + ": held jobs released at " + perSecond
                + "/s, held until " + time(untilMs);
    }

    static String time(Long epochMs) {
        return epochMs == null ? "(unknown)" : Instant.ofEpochMilli(epochMs).toString();
    }
}
