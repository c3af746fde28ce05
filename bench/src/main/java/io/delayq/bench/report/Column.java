package io.delayq.bench.report;

/**
 * One column of a results table.
 *
 * @param header shown header
 * @param metric metric key in a run, or a label key when {@code text}
 * @param fmt    how numbers are printed
 * @param better which way is better, for the ratio row
 * @param text   a per-implementation text cell (e.g. the bulk path) instead of a number
 */
public record Column(String header, String metric, Fmt fmt, Better better, boolean text) {
    public enum Fmt { INT, D1, D2, D3 }

    public enum Better { HIGHER, LOWER, NONE }

    public static Column higher(String header, String metric) {
        return new Column(header + " ↑", metric, Fmt.INT, Better.HIGHER, false);
    }

    public static Column lower(String header, String metric, Fmt fmt) {
        return new Column(header + " ↓", metric, fmt, Better.LOWER, false);
    }

    public static Column plain(String header, String metric, Fmt fmt) {
        return new Column(header, metric, fmt, Better.NONE, false);
    }

    public static Column label(String header, String key) {
        return new Column(header, key, Fmt.INT, Better.NONE, true);
    }

    public String format(double v) {
        if (Double.isNaN(v)) {
            return "–";
        }
        if (Double.isInfinite(v)) {
            return "∞";
        }
        return switch (fmt) {
            case INT -> String.format("%,.0f", v);
            // batches can bring a per-job figure far below 0.1 (3 Redis calls per 500 jobs): keep its digits
            case D1 -> v != 0 && Math.abs(v) < 0.1 ? String.format("%.3f", v) : String.format("%,.1f", v);
            case D2 -> String.format("%,.2f", v);
            case D3 -> String.format("%,.3f", v);
        };
    }
}
