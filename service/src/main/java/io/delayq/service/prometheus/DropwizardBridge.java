package io.delayq.service.prometheus;

import com.codahale.metrics.Counter;
import com.codahale.metrics.Gauge;
import com.codahale.metrics.Meter;
import com.codahale.metrics.Metric;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Snapshot;
import com.codahale.metrics.Timer;
import io.delayq.service.prometheus.BridgedMetrics.Series;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.MetricMetadata;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.Quantiles;
import io.prometheus.metrics.model.snapshots.SummarySnapshot;
import io.prometheus.metrics.model.snapshots.Unit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The Dropwizard metrics as Prometheus families, named by {@link BridgedMetrics}, read at each scrape. In place of the
 * client's {@code DropwizardExports}, which keeps Dropwizard's names (camelCase, no units) and strips reserved
 * suffixes so that two metrics can end up with one name, failing the whole scrape.
 *
 * <p>One scrape never fails because of a name: a family whose name a native series already has, or that two
 * Dropwizard metrics of different kinds would share, is left out (logged once), as is a second sample with the same
 * labels.
 */
final class DropwizardBridge implements MultiCollector {
    private static final Logger LOG = LoggerFactory.getLogger(DropwizardBridge.class);
    private static final double NANOS_PER_SECOND = TimeUnit.SECONDS.toNanos(1);

    private final MetricRegistry registry;
    private final Set<String> nativeFamilies;
    private final Set<String> warned = ConcurrentHashMap.newKeySet();

    /** @param nativeFamilies the names of the families the registry has besides this bridge */
    DropwizardBridge(MetricRegistry registry, Set<String> nativeFamilies) {
        this.registry = registry;
        this.nativeFamilies = Set.copyOf(nativeFamilies);
    }

    /** The samples of one family, in the order met, and the label sets already taken. */
    private record Family(Series first, List<Object> points, Set<Object> labels) {
    }

    @Override
    public MetricSnapshots collect() {
        Map<String, Family> families = new LinkedHashMap<>();
        registry.getMetrics().forEach((name, metric) -> BridgedMetrics.of(name, metric).ifPresent(series -> {
            if (nativeFamilies.contains(series.family())) {
                warnOnce(series.family(), name + " is not bridged: a native series is named " + series.family());
                return;
            }
            Family family = families.computeIfAbsent(series.family(),
                    f -> new Family(series, new ArrayList<>(), new HashSet<>()));
            if (family.first().kind() != series.kind()) {
                warnOnce(name, name + " is not bridged: " + series.family() + " is a " + family.first().kind());
            } else if (family.labels().add(series.labels())) {
                Object point = point(series, metric);
                if (point != null) {
                    family.points().add(point);
                }
            }
        }));
        MetricSnapshots.Builder out = MetricSnapshots.builder();
        families.forEach((name, family) -> {
            if (!family.points().isEmpty()) {
                out.metricSnapshot(snapshot(family));
            }
        });
        return out.build();
    }

    private static Object point(Series series, Metric metric) {
        return switch (series.kind()) {
            case COUNTER -> CounterSnapshot.CounterDataPointSnapshot.builder().labels(series.labels())
                    .value(metric instanceof Meter meter ? meter.getCount() : ((Counter) metric).getCount()).build();
            case GAUGE -> {
                Double value = metric instanceof Counter counter ? Double.valueOf(counter.getCount())
                        : gaugeValue((Gauge<?>) metric);
                yield value == null || series.negativeIsUnknown() && value < 0 ? null
                        : GaugeSnapshot.GaugeDataPointSnapshot.builder().labels(series.labels()).value(value).build();
            }
            case SUMMARY_SECONDS -> {
                Timer timer = (Timer) metric;
                Snapshot s = timer.getSnapshot();
                yield SummarySnapshot.SummaryDataPointSnapshot.builder().labels(series.labels())
                        .count(timer.getCount())
                        .quantiles(Quantiles.builder()
                                .quantile(0.5, s.getMedian() / NANOS_PER_SECOND)
                                .quantile(0.75, s.get75thPercentile() / NANOS_PER_SECOND)
                                .quantile(0.95, s.get95thPercentile() / NANOS_PER_SECOND)
                                .quantile(0.99, s.get99thPercentile() / NANOS_PER_SECOND)
                                .quantile(0.999, s.get999thPercentile() / NANOS_PER_SECOND)
                                .build())
                        .build();
            }
        };
    }

    /** A gauge's value as a number: a Number, a Boolean as 1 or 0; anything else (null: unknown) has no sample. */
    private static Double gaugeValue(Gauge<?> gauge) {
        Object value = gauge.getValue();
        if (value instanceof Number number) {
            return number.doubleValue();
        }
        return value instanceof Boolean flag ? (flag ? 1.0 : 0.0) : null;
    }

    private static MetricSnapshot snapshot(Family family) {
        Series series = family.first();
        return switch (series.kind()) {
            case COUNTER -> new CounterSnapshot(new MetricMetadata(series.family(), series.help()),
                    family.points().stream().map(p -> (CounterSnapshot.CounterDataPointSnapshot) p).toList());
            case GAUGE -> new GaugeSnapshot(new MetricMetadata(series.family(), series.help()),
                    family.points().stream().map(p -> (GaugeSnapshot.GaugeDataPointSnapshot) p).toList());
            case SUMMARY_SECONDS -> new SummarySnapshot(
                    new MetricMetadata(series.family(), series.help(), Unit.SECONDS),
                    family.points().stream().map(p -> (SummarySnapshot.SummaryDataPointSnapshot) p).toList());
        };
    }

    private void warnOnce(String key, String message) {
        if (warned.add(key)) {
            LOG.warn("{} (one family per name, or the whole scrape would fail)", message);
        }
    }
}
