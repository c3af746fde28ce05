package io.delayq.service.history;

/** {@code GET /v1/topics/{topic}/forecast}: jobs falling due in each bucket, the first starting at {@code from}. */
public record ForecastView(String topic, String from, long bucketSeconds, long[] counts) {
}
