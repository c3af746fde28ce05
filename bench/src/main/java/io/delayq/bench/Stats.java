package io.delayq.bench;

import java.util.Arrays;
import java.util.List;

/** Percentiles (nearest rank) and the median / min / max of repetitions. */
public final class Stats {
    private Stats() {
    }

    /** Nearest-rank percentile of a sorted array, {@code q} in [0, 1]. */
    public static double percentile(long[] sorted, double q) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int rank = (int) Math.ceil(q * sorted.length);
        return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
    }

    /** Median with min and max over repetitions. */
    public record Summary(double median, double min, double max, int n) {
        public static Summary of(List<Double> values) {
            double[] v = values.stream().filter(d -> d != null && !d.isNaN()).mapToDouble(Double::doubleValue).sorted().toArray();
            if (v.length == 0) {
                return new Summary(Double.NaN, Double.NaN, Double.NaN, 0);
            }
            double med = v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2.0;
            return new Summary(med, v[0], v[v.length - 1], v.length);
        }
    }

    public static long[] sorted(long[] values) {
        long[] c = values.clone();
        Arrays.sort(c);
        return c;
    }
}
