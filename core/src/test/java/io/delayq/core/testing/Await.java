package io.delayq.core.testing;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Polling waits for tests: a condition checked every 10 ms until it holds, or an {@link AssertionError} naming it. */
public final class Await {
    /** How long {@link #until(String, BooleanSupplier)} waits: generous, for a loaded two-core machine. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(20);

    private Await() {
    }

    /** Waits up to {@link #DEFAULT_TIMEOUT} until {@code condition} holds; {@code what} names it in the failure. */
    public static void until(String what, BooleanSupplier condition) {
        until(what, DEFAULT_TIMEOUT.toMillis(), condition);
    }

    /** Waits up to {@code timeout} until {@code condition} holds; {@code what} names it in the failure. */
    public static void until(String what, Duration timeout, BooleanSupplier condition) {
        until(what, timeout.toMillis(), condition);
    }

    /** Waits up to {@code timeoutMs} until {@code condition} holds; {@code what} names it in the failure. */
    public static void until(String what, long timeoutMs, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out after " + timeoutMs + " ms waiting until " + what);
            }
            sleep(10);
        }
    }

    /** {@link Thread#sleep(long)} that turns an interrupt into an {@link AssertionError} (keeping the flag set). */
    public static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }
}
