package io.delayq.client;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

import java.time.Instant;
import java.util.List;

/**
 * How many of a topic's jobs fall due in each of the next minutes ({@code GET /v1/topics/{topic}/forecast}).
 *
 * @param from          the start of the first bucket (the store's clock)
 * @param bucketSeconds each bucket's width
 * @param counts        jobs due per bucket, from {@code from} on
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record TopicForecast(String topic, Instant from, int bucketSeconds, List<Long> counts) {
    public TopicForecast {
        counts = counts == null ? List.of() : List.copyOf(counts);
    }
}
