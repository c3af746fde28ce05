package io.delayq.bench.report;

import io.delayq.bench.Results;
import io.delayq.bench.Stats;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** PNG charts: lateness distribution per implementation, throughput bars. */
public final class Charts {
    private static final double[] CURVE_Q = {0.10, 0.25, 0.50, 0.75, 0.90, 0.95, 0.98, 0.99, 0.995, 0.999};

    private Charts() {
    }

    /**
     * Lateness distribution: lateness (ms, log scale) at each percentile (on a "nines" axis), one line per
     * implementation, all repetitions pooled. 0 ms is drawn as 0.5 ms so the log axis can show it.
     *
     * @return the file, or {@code null} when there is nothing to draw
     */
    public static Path lateness(Results results, String table, String title, Path dir, String file) throws IOException {
        Map<String, List<long[]>> samples = results.lateness(table);
        if (samples.isEmpty()) {
            return null;
        }
        // x = -log10(1 - q): p90 at 1, p99 at 2, p99.9 at 3, so the tail gets as much room as the body
        XYChart chart = new XYChartBuilder().width(900).height(520).title(title)
                .xAxisTitle("percentile (the last point of each line is its max)").yAxisTitle("lateness ms (log; 0 drawn as 0.5)").build();
        chart.getStyler().setYAxisLogarithmic(true);
        chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNW);
        // As many decimals as the tick's nines need (p99.9 at 3, p99.999 at 5): with fewer, ticks far into the tail
        // print the same label, and XChart's tick calculator never settles (a 150k-sample churn hung it).
        chart.setCustomXAxisTickLabelsFormatter(x -> {
            double q = 100 * (1 - Math.pow(10, -x));
            int decimals = Math.max(0, (int) Math.ceil(x) - 1);
            String t = String.format(java.util.Locale.ROOT, "%." + decimals + "f", q);
            return "p" + (t.contains(".") ? t.replaceAll("0+$", "").replaceAll("\\.$", "") : t);
        });
        for (var e : samples.entrySet()) {
            long[] pooled = pool(e.getValue());
            if (pooled.length == 0) {
                continue;
            }
            List<Double> xs = new ArrayList<>();
            List<Double> ys = new ArrayList<>();
            for (double q : CURVE_Q) {
                xs.add(-Math.log10(1 - q));
                ys.add(Math.max(0.5, Stats.percentile(pooled, q)));
            }
            xs.add(Math.log10(pooled.length)); // the max is the nearest-rank percentile 1 - 1/n
            ys.add(Math.max(0.5, pooled[pooled.length - 1]));
            chart.addSeries(e.getKey(), xs, ys).setMarker(SeriesMarkers.CIRCLE);
        }
        Path out = dir.resolve(file);
        BitmapEncoder.saveBitmap(chart, out.toString(), BitmapEncoder.BitmapFormat.PNG);
        return out;
    }

    /**
     * Grouped bars of median throughput per implementation.
     *
     * @param series pairs of {metric key, series name}
     */
    public static Path throughput(Results results, String table, String title, List<String[]> series, Path dir, String file)
            throws IOException {
        List<String> impls = results.impls(table);
        if (impls.isEmpty()) {
            return null;
        }
        CategoryChart chart = new CategoryChartBuilder().width(900).height(520).title(title)
                .xAxisTitle("implementation").yAxisTitle("jobs/s (median)").build();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNE);
        chart.getStyler().setYAxisDecimalPattern("#,###");
        boolean any = false;
        for (String[] s : series) {
            List<Double> ys = new ArrayList<>();
            for (String impl : impls) {
                double v = Stats.Summary.of(results.values(table, impl, s[0])).median();
                ys.add(Double.isNaN(v) ? 0.0 : v);
            }
            if (ys.stream().anyMatch(v -> v > 0)) {
                chart.addSeries(s[1], impls, ys);
                any = true;
            }
        }
        if (!any) {
            return null;
        }
        Path out = dir.resolve(file);
        BitmapEncoder.saveBitmap(chart, out.toString(), BitmapEncoder.BitmapFormat.PNG);
        return out;
    }

    static long[] pool(List<long[]> reps) {
        int n = reps.stream().mapToInt(a -> a.length).sum();
        long[] all = new long[n];
        int k = 0;
        for (long[] a : reps) {
            System.arraycopy(a, 0, all, k, a.length);
            k += a.length;
        }
        return Stats.sorted(all);
    }
}
