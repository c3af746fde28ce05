package io.delayq.bench;

/** Placeholder until the harness lands. */
public final class BenchMain {
    public static void main(String[] args) {
    }
}
