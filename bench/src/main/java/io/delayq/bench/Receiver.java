package io.delayq.bench;

/** Where a consumer reports a job it took. Thread-safe. */
@FunctionalInterface
public interface Receiver {
    void received(int id);
}
