package io.delayq.client;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

import java.time.Instant;
import java.util.List;

/**
 * A topic's counts per minute, oldest first and the current minute last ({@code GET /v1/topics/{topic}/history};
 * the store keeps 7 days).
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record TopicHistory(String topic, List<Minute> minutes) {
    public TopicHistory {
        minutes = minutes == null ? List.of() : List.copyOf(minutes);
    }

    /**
     * One minute.
     *
     * @param dead          jobs that became dead letters, whatever the cause
     * @param latenessP50Ms upper bound of the lateness histogram bucket holding the median; {@code null} when nothing
     *                      started in the minute
     * @param expired       of {@code dead}, jobs not delivered by their expiry (cause {@code EXPIRED}); 0 from a
     *                      server that does not count it
     * @param noRetry       of {@code dead}, jobs ended by a "don't retry" answer (cause {@code NO_RETRY}); 0 likewise
     */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Minute(Instant minute, long enqueued, long delivered, long failed, long dead, Long latenessP50Ms,
                         Long latenessP99Ms, long expired, long noRetry) {

        /** A minute without dead letters by cause (the form before they were counted). */
        public Minute(Instant minute, long enqueued, long delivered, long failed, long dead, Long latenessP50Ms,
                      Long latenessP99Ms) {
            this(minute, enqueued, delivered, failed, dead, latenessP50Ms, latenessP99Ms, 0, 0);
        }
    }
}
