package io.delayq.service.prometheus;

/**
 * Histogram bucket bounds, in seconds, for times from a millisecond to ten minutes: a callback answering in 2 ms and a
 * delivery running two minutes late (a backlog, a stopped instance) both land in a bucket that tells them apart.
 */
final class LatencyBuckets {
    static final double[] SECONDS = {
            0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5,
            1, 2.5, 5, 10, 30, 60, 120, 300, 600};

    private LatencyBuckets() {
    }
}
