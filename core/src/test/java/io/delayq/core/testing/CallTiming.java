package io.delayq.core.testing;

/**
 * What calls cost on a machine shared with other work: rounds of each call in turn, and the fastest round of each, in
 * µs per call. A slow round says more about the machine's other load than about the call, and alternating the calls
 * gives each the same chances.
 */
public final class CallTiming {
    private CallTiming() {
    }

    /**
     * Runs {@code calls} in turn, {@code perRound} times each per round, for {@code rounds} rounds.
     *
     * @return the fastest round's µs per call of each, in the order given
     */
    public static double[] fastestRounds(int rounds, int perRound, Runnable... calls) {
        double[] best = new double[calls.length];
        java.util.Arrays.fill(best, Double.MAX_VALUE);
        for (int round = 0; round < rounds; round++) {
            for (int c = 0; c < calls.length; c++) {
                long start = System.nanoTime();
                for (int i = 0; i < perRound; i++) {
                    calls[c].run();
                }
                best[c] = Math.min(best[c], (System.nanoTime() - start) / 1_000.0 / perRound);
            }
        }
        return best;
    }
}
