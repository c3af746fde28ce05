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
     * @param latenessP50Ms upper bound of the lateness histogram bucket holding the median; {@code null} when nothing
     *                      started in the minute
     */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Minute(Instant minute, long enqueued, long delivered, long failed, long dead, Long latenessP50Ms,
                         Long latenessP99Ms) {
    }
}
