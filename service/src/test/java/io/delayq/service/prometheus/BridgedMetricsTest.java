package io.delayq.service.prometheus;

import com.codahale.metrics.Counter;
import com.codahale.metrics.Gauge;
import com.codahale.metrics.Histogram;
import com.codahale.metrics.Meter;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.SlidingWindowReservoir;
import com.codahale.metrics.Timer;
import io.delayq.service.prometheus.BridgedMetrics.Kind;
import io.delayq.service.prometheus.BridgedMetrics.Series;
import io.prometheus.metrics.expositionformats.ExpositionFormats;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Labels;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/** How each kind of Dropwizard metric is named for Prometheus, left out, or shown without a sample. */
class BridgedMetricsTest {
    @Test
    void namesAreSnakeCase() {
        assertThat(BridgedMetrics.snakeCase("delayq.consumer.parkedLeaseRequests"))
                .isEqualTo("delayq_consumer_parked_lease_requests");
        assertThat(BridgedMetrics.snakeCase("io.dropwizard.jetty.MutableServletContextHandler.4xx-responses"))
                .isEqualTo("io_dropwizard_jetty_mutable_servlet_context_handler_4xx_responses");
        assertThat(BridgedMetrics.snakeCase("TimeBoundHealthCheck-pool.running"))
                .isEqualTo("time_bound_health_check_pool_running");
        assertThat(BridgedMetrics.snakeCase("HTTPServer.jvmCPU 'x'")).isEqualTo("http_server_jvm_cpu_x");
    }

    @Test
    void kindsGetTheirSuffixesAndLevelsAreGauges() {
        assertThat(series("delayq.jobs.enqueued", new Meter()))
                .contains(new Series("delayq_jobs_enqueued", Kind.COUNTER, Labels.EMPTY,
                        "Dropwizard meter delayq.jobs.enqueued", false));
        assertThat(series("delayq.history.flush-failures", new Counter()).map(Series::kind)).contains(Kind.COUNTER);
        assertThat(series("io.dropwizard.jetty.MutableServletContextHandler.active-requests", new Counter()))
                .map(Series::kind).contains(Kind.GAUGE);
        assertThat(series("delayq-archive-ttl.running", new Counter())).map(Series::kind).contains(Kind.GAUGE);
        assertThat(series("io.dropwizard.jetty.MutableServletContextHandler.get-requests", new Timer()))
                .map(Series::family).contains("io_dropwizard_jetty_mutable_servlet_context_handler_get_requests_seconds");
        assertThat(series("delayq.consumer.parkedLeaseRequests", (Gauge<Integer>) () -> 1))
                .map(Series::family).contains("delayq_consumer_parked_lease_requests");
    }

    @Test
    void theServicesAmbiguousOrUnitNamesAreRenamed() {
        assertThat(series("delayq.breaker.jobs-held", new Meter())).map(Series::family).contains("delayq_breaker_holds");
        assertThat(series("delayq.breaker.opened", new Meter())).map(Series::family)
                .contains("delayq_breaker_circuits_opened");
        assertThat(series("delayq.history.dropped-minutes", new Counter())).map(Series::family)
                .contains("delayq_history_dropped_records");
        assertThat(series("delayq.archive.backlog", (Gauge<Long>) () -> 1L)).map(Series::negativeIsUnknown)
                .contains(true);
    }

    @Test
    void jerseyMetricsOfAResourceMethodAreOneLabelledFamilyEach() {
        String method = "io.delayq.service.jobs.JobsResource.scheduleBatch";
        Labels labels = Labels.of("method", "scheduleBatch", "resource", "JobsResource");
        assertThat(series(method, new Timer())).contains(new Series("delayq_api_method_seconds", Kind.SUMMARY_SECONDS,
                labels, "Time spent in the resource method, by resource and method", false));
        assertThat(series(method + ".total", new Timer())).map(Series::family).contains("delayq_api_request_seconds");
        assertThat(series(method + ".request.filtering", new Timer())).map(Series::family)
                .contains("delayq_api_request_filtering_seconds");
        assertThat(series(method + ".exceptions", new Meter())).map(Series::family).contains("delayq_api_exceptions");
        assertThat(series("io.delayq.service.consumer.LeaseResource.lease", new Meter()))
                .map(Series::family).contains("delayq_api_async_requests");
        assertThat(series("ch.qos.logback.core.Appender.warn", new Meter()))
                .contains(new Series("logback_events", Kind.COUNTER, Labels.of("level", "warn"),
                        "Events logged, by level", false));
    }

    @Test
    void leavesOutWhatHasANativeSeriesOrNoConventionalName() {
        Gauge<Long> gauge = () -> 1L;
        assertThat(series("delayq.topics.orders.scheduled", gauge)).as("per topic: delayq_topic_scheduled").isEmpty();
        assertThat(series("delayq.delivery.topic.orders.delivered", new Counter())).isEmpty();
        assertThat(series("delayq.delivery.lateness", new Histogram(new SlidingWindowReservoir(5))))
                .as("milliseconds; delayq_delivery_lateness_seconds is the histogram").isEmpty();
        assertThat(series(CallbackLatencyHistogram.TIMER, new Timer())).isEmpty();
        assertThat(series("delayq.breaker.held-jobs", gauge)).as("CircuitSeries").isEmpty();
        assertThat(series("jvm.memory.heap.used", gauge)).as("the client's JVM instrumentation").isEmpty();
        assertThat(series("io.dropwizard.jetty.MutableServletContextHandler.percent-4xx-1m", (Gauge<Double>) () -> .1))
                .isEmpty();
        assertThat(series("InstrumentedScheduledExecutorService-1.submitted", new Meter())).isEmpty();
        assertThat(series("instrumented-scheduled-executor-service-1.submitted", new Meter())).isEmpty();
        assertThat(series("instrumented-thread-delegate-12.created", new Meter())).isEmpty();
        assertThat(series("some.histogram", new Histogram(new SlidingWindowReservoir(5)))).as("no unit").isEmpty();
        assertThat(series("TimeBoundHealthCheck-pool.created", new Meter())).as("_created is reserved").isEmpty();
        assertThat(series("ch.qos.logback.core.Appender.all", new Meter())).as("sum() of the levels").isEmpty();
    }

    @Test
    void aStoreReadingGaugeThatCannotTellHasNoSample() throws IOException {
        MetricRegistry dropwizard = new MetricRegistry();
        AtomicReference<Long> backlog = new AtomicReference<>(-1L);
        AtomicReference<Integer> due = new AtomicReference<>(null);
        dropwizard.register("delayq.archive.backlog", (Gauge<Long>) backlog::get);
        dropwizard.register("delayq.notices.due", (Gauge<Integer>) due::get);
        dropwizard.register("delayq.consumer.sse.subscribers", (Gauge<Integer>) () -> -1);
        PrometheusRegistry registry = new PrometheusRegistry();
        registry.register(new DropwizardBridge(dropwizard, Set.of()));

        Exposition unknown = scrape(registry);
        assertThat(unknown.families()).doesNotContainKeys("delayq_archive_backlog", "delayq_notices_due");
        assertThat(unknown.value("delayq_consumer_sse_subscribers", Map.of())).as("not a store reading").isEqualTo(-1.0);

        backlog.set(7L);
        due.set(2);
        Exposition known = scrape(registry);
        assertThat(known.value("delayq_archive_backlog", Map.of())).isEqualTo(7.0);
        assertThat(known.value("delayq_notices_due", Map.of())).isEqualTo(2.0);
    }

    @Test
    void aNameTakenByANativeSeriesOrAnotherKindIsLeftOutWithoutFailingTheScrape() throws IOException {
        MetricRegistry dropwizard = new MetricRegistry();
        dropwizard.register("delayq.store.up", (Gauge<Integer>) () -> 5);
        dropwizard.register("a.b", new Meter());
        dropwizard.register("a-b", (Gauge<Integer>) () -> 1); // the family a_b as a gauge and as a counter
        dropwizard.register("x.y", new Timer());
        dropwizard.register("x-y", new Timer());
        dropwizard.timer("x.y").update(2, TimeUnit.SECONDS);
        PrometheusRegistry registry = new PrometheusRegistry();
        registry.register(new DropwizardBridge(dropwizard, Set.of("delayq_store_up")));

        Exposition scraped = scrape(registry);
        assertThat(scraped.families()).doesNotContainKey("delayq_store_up");
        assertThat(scraped.type("x_y_seconds")).isEqualTo("summary");
        assertThat(scraped.samples("x_y_seconds_count")).as("one of the two, not both").hasSize(1);
        assertThat(scraped.families().keySet()).as("one of the two").containsAnyOf("a_b_total", "a_b")
                .doesNotContain(scraped.families().containsKey("a_b") ? "a_b_total" : "a_b");
    }

    @Test
    void timersAreSummariesInSeconds() throws IOException {
        MetricRegistry dropwizard = new MetricRegistry();
        dropwizard.timer("io.delayq.service.jobs.JobsResource.get").update(250, TimeUnit.MILLISECONDS);
        PrometheusRegistry registry = new PrometheusRegistry();
        registry.register(new DropwizardBridge(dropwizard, Set.of()));

        Exposition scraped = scrape(registry);
        Map<String, String> labels = Map.of("resource", "JobsResource", "method", "get");
        assertThat(scraped.value("delayq_api_method_seconds_count", labels)).isEqualTo(1.0);
        assertThat(scraped.value("delayq_api_method_seconds", Map.of("resource", "JobsResource", "method", "get",
                "quantile", "0.5"))).isEqualTo(0.25);
    }

    private static Optional<Series> series(String name, com.codahale.metrics.Metric metric) {
        return BridgedMetrics.of(name, metric);
    }

    private static Exposition scrape(PrometheusRegistry registry) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ExpositionFormats.init().getPrometheusTextFormatWriter().write(out, registry.scrape());
        return Exposition.parseText(out.toString(StandardCharsets.UTF_8));
    }
}
