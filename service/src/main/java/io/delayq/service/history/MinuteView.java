package io.delayq.service.history;

/**
 * One minute of a topic's history on the wire. Lateness percentiles are the upper bounds of the histogram buckets
 * holding them ({@link io.delayq.core.history.LatenessBuckets}), {@code null} when nothing started that minute.
 * {@code expired} and {@code noRetry} are among {@code dead}: its dead letters of cause EXPIRED and NO_RETRY. Push and
 * pull lanes count alike: a pull lease starts an attempt (its lateness), an ack is delivered, a nack failed.
 */
public record MinuteView(String minute, long enqueued, long delivered, long failed, long dead, long expired,
                         long noRetry, Long latenessP50Ms, Long latenessP99Ms) {
}
