package io.delayq.service.prometheus;

import com.codahale.metrics.Counter;
import com.codahale.metrics.Gauge;
import com.codahale.metrics.Meter;
import com.codahale.metrics.Metric;
import com.codahale.metrics.Timer;
import io.prometheus.metrics.model.snapshots.Labels;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Prometheus name of each Dropwizard metric the bridge ({@link DropwizardBridge}) exposes, by Prometheus's naming
 * conventions (snake_case, base units in the name, {@code _total} on counters), or none for a metric left out.
 *
 * <p>Left out: metrics with a native series ({@code delayq.topics.*} and {@code delayq.delivery.topic.*}, one name per
 * topic, are the labelled {@code delayq_topic_*}; the engine's callback-latency timer and millisecond lateness
 * histogram are the {@code _seconds} histograms; the breaker's totals are {@link CircuitSeries}; {@code jvm.*} is the
 * client's JVM instrumentation), rates Prometheus computes itself (Jetty's {@code percent-*} gauges, logback's
 * {@code all}), histograms (their unit is unknown), names that change from one start to the next (the executors
 * Dropwizard numbers, {@code InstrumentedScheduledExecutorService-1.*}), and names ending in a word Prometheus reserves
 * for the samples of other kinds ({@code created}, {@code info}, {@code bucket}, {@code count}, {@code sum},
 * {@code total}).
 *
 * <p>Renamed: the service's own metrics whose name would be ambiguous or carry a non-base unit ({@link #RENAMED});
 * the Jersey timers and meters of each resource method, into labelled families {@code delayq_api_*{resource, method}};
 * logback's per-level meters into {@code logback_events_total{level}}. Everything else keeps its name in snake_case:
 * gauges, meters as counters ({@code _total}), Dropwizard counters as counters except the levels among them
 * ({@code active-*}, {@code running}: gauges), timers as summaries in seconds ({@code _seconds}).
 */
final class BridgedMetrics {
    /** How a Dropwizard metric is exposed. */
    enum Kind { COUNTER, GAUGE, SUMMARY_SECONDS }

    /**
     * One exposed series.
     *
     * @param family            the family's name, without {@code _total} for a counter, with {@code _seconds} for a
     *                          summary
     * @param negativeIsUnknown a gauge that reads the store and says -1 when it cannot: no sample then
     */
    record Series(String family, Kind kind, Labels labels, String help, boolean negativeIsUnknown) {
    }

    private record Renamed(String family, String help, boolean negativeIsUnknown) {
    }

    /** The service's own metrics with a Prometheus name other than their snake_case. */
    private static final Map<String, Renamed> RENAMED = Map.of(
            "delayq.breaker.jobs-held", new Renamed("delayq_breaker_holds", "Times this instance held a job (postponed"
                    + " it without using an attempt) for an open circuit or the paced release after one", false),
            "delayq.breaker.opened", new Renamed("delayq_breaker_circuits_opened",
                    "Circuits of callback origins this instance's attempts opened", false),
            "delayq.breaker.closed", new Renamed("delayq_breaker_circuits_closed",
                    "Circuits of callback origins this instance's probes closed", false),
            "delayq.history.dropped-minutes", new Renamed("delayq_history_dropped_records", "Per-minute topic history"
                    + " records this instance dropped because the store stayed down too long to take them", false),
            "delayq.archive.backlog", new Renamed("delayq_archive_backlog", "Finished jobs in the store's outbox,"
                    + " waiting to be archived (the same on every instance; absent while the store cannot tell)", true),
            "delayq.archive.quarantine", new Renamed("delayq_archive_quarantine", "Unreadable outbox entries in the"
                    + " store's quarantine (the same on every instance; absent while the store cannot tell)", true));

    private static final List<String> LEFT_OUT_PREFIXES = List.of(TopicDepthSeries.PREFIX, "delayq.delivery.topic.",
            "jvm.");
    private static final List<String> LEFT_OUT = List.of(CallbackLatencyHistogram.TIMER, "delayq.delivery.lateness",
            "delayq.breaker.open-circuits", "delayq.breaker.held-jobs", "ch.qos.logback.core.Appender.all");
    /** Executors and thread factories Dropwizard names by a creation counter ("-1"): another name at each start. */
    /**
     * Metrics' instrumented executors and thread factories without a name of their own are numbered in creation order
     * ({@code instrumented-scheduled-executor-service-1.submitted}, {@code instrumented-thread-delegate-1.created}, or
     * the class name in older versions): a name that changes from one start to the next is no series.
     */
    private static final Pattern NUMBERED = Pattern.compile("(?:Instrumented\\w+|instrumented(?:-[a-z]+)+)-\\d+\\..*");
    private static final Pattern RESERVED_END = Pattern.compile("_(created|info|bucket|count|sum|total)$");
    private static final Pattern JERSEY = Pattern.compile(
            "io\\.delayq\\.service\\.(?:[a-z]+\\.)+([A-Z]\\w*Resource)\\.(\\w+)"
                    + "(\\.total|\\.request\\.filtering|\\.response\\.filtering|\\.exceptions)?");
    private static final Pattern LOGBACK = Pattern.compile("ch\\.qos\\.logback\\.core\\.Appender\\.([a-z]+)");

    private BridgedMetrics() {
    }

    /** The series of a Dropwizard metric, or empty when it is left out. */
    static Optional<Series> of(String name, Metric metric) {
        if (LEFT_OUT.contains(name) || LEFT_OUT_PREFIXES.stream().anyMatch(name::startsWith)
                || NUMBERED.matcher(name).matches()) {
            return Optional.empty();
        }
        Renamed renamed = RENAMED.get(name);
        if (renamed != null) {
            return kind(name, metric).map(kind -> new Series(renamed.family(), kind, Labels.EMPTY, renamed.help(),
                    renamed.negativeIsUnknown()));
        }
        Matcher jersey = JERSEY.matcher(name);
        if (jersey.matches()) {
            Optional<Series> api = api(jersey.group(1), jersey.group(2), jersey.group(3), metric);
            if (api.isPresent()) {
                return api;
            }
        }
        Matcher logback = LOGBACK.matcher(name);
        if (logback.matches() && metric instanceof Meter) {
            return Optional.of(new Series("logback_events", Kind.COUNTER, Labels.of("level", logback.group(1)),
                    "Events logged, by level", false));
        }
        if (metric instanceof Gauge<?> && name.contains(".percent-")) {
            return Optional.empty(); // Jetty's rates of 4xx/5xx answers: rate() of its *_responses_total counters
        }
        return kind(name, metric).flatMap(kind -> {
            String family = snakeCase(name) + (kind == Kind.SUMMARY_SECONDS ? "_seconds" : "");
            return RESERVED_END.matcher(family).find() ? Optional.empty()
                    : Optional.of(new Series(family, kind, Labels.EMPTY,
                    "Dropwizard " + metric.getClass().getSimpleName().toLowerCase(Locale.ROOT) + " " + name, false));
        });
    }

    /** The Jersey metrics of a resource method: one family per measurement, the method a label. */
    private static Optional<Series> api(String resource, String method, String suffix, Metric metric) {
        String what = suffix == null ? "" : suffix;
        String[] family = metric instanceof Timer ? switch (what) {
            case "" -> new String[]{"delayq_api_method_seconds", "Time spent in the resource method"};
            case ".total" -> new String[]{"delayq_api_request_seconds", "Time of the whole request, filters included"};
            case ".request.filtering" -> new String[]{"delayq_api_request_filtering_seconds",
                    "Time in the request filters (authentication, size limits)"};
            default -> new String[]{"delayq_api_response_filtering_seconds", "Time in the response filters"};
        } : metric instanceof Meter ? switch (what) {
            case "" -> new String[]{"delayq_api_async_requests", "Requests to an asynchronous resource method"};
            case ".exceptions" -> new String[]{"delayq_api_exceptions", "Exceptions thrown by the resource method"};
            default -> null;
        } : null;
        if (family == null) {
            return Optional.empty();
        }
        return Optional.of(new Series(family[0], metric instanceof Timer ? Kind.SUMMARY_SECONDS : Kind.COUNTER,
                Labels.of("method", method, "resource", resource), family[1] + ", by resource and method", false));
    }

    private static Optional<Kind> kind(String name, Metric metric) {
        if (metric instanceof Timer) {
            return Optional.of(Kind.SUMMARY_SECONDS);
        }
        if (metric instanceof Meter) {
            return Optional.of(Kind.COUNTER);
        }
        if (metric instanceof Counter) {
            String last = name.substring(name.lastIndexOf('.') + 1);
            return Optional.of(last.equals("running") || last.startsWith("active") ? Kind.GAUGE : Kind.COUNTER);
        }
        if (metric instanceof Gauge<?>) {
            return Optional.of(Kind.GAUGE);
        }
        return Optional.empty(); // histograms: no unit to put in the name
    }

    /**
     * {@code delayq.consumer.parkedLeaseRequests} → {@code delayq_consumer_parked_lease_requests}: camelCase words
     * split, lower case, anything but letters and digits one underscore.
     */
    static String snakeCase(String name) {
        String words = name.replaceAll("([a-z0-9])([A-Z])", "$1_$2").replaceAll("([A-Z]+)([A-Z][a-z])", "$1_$2");
        String snake = words.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "_").replaceAll("^_+|_+$", "");
        return snake.isEmpty() || Character.isDigit(snake.charAt(0)) ? "_" + snake : snake;
    }
}
