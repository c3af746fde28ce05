/**
 * Prometheus exposition on the admin port, {@code GET /metrics/prometheus} (text format 0.0.4, or OpenMetrics when
 * the {@code Accept} header asks for {@code application/openmetrics-text}), through the official Prometheus Java
 * client ({@code io.prometheus:prometheus-metrics-*}): its registry, its Dropwizard bridge and its servlet.
 *
 * <h2>Series</h2>
 * <ul>
 *   <li>Every Dropwizard metric of the service, bridged, names sanitised ({@code delayq.archive.backlog} becomes
 *   {@code delayq_archive_backlog}, meters and counters get {@code _total}, timers and histograms become summaries):
 *   JVM ({@code jvm_memory_heap_used}, ...), Jetty, Jersey, the engine ({@code delayq_delivery_*}), the archive
 *   ({@code delayq_archive_backlog}, {@code delayq_archive_quarantine}), leases ({@code
 *   delayq_consumer_parkedLeaseRequests}, {@code delayq_consumer_leaseTopicsTracked}), and so on. Left out: the
 *   Dropwizard metrics with a topic in their name ({@code delayq.topics.*}, {@code delayq.delivery.topic.*}), which
 *   are the labelled series below instead.</li>
 *   <li>Per topic, label {@code topic} with bounded cardinality ({@code prometheus.topicLimit} topics, default 50,
 *   the rest folded into {@code topic="other"}): counters {@code delayq_topic_enqueued_total},
 *   {@code delayq_topic_delivered_total}, {@code delayq_topic_failed_total}, {@code delayq_topic_dead_total};
 *   gauges {@code delayq_topic_scheduled}, {@code delayq_topic_leased}.</li>
 *   <li>Histograms with explicit buckets from 1 ms to 10 min ({@link io.delayq.service.prometheus.LatencyBuckets}):
 *   {@code delayq_delivery_lateness_seconds} (due time to the start of delivery) and
 *   {@code delayq_delivery_callback_latency_seconds}.</li>
 *   <li>Per callback origin, for origins whose circuit breaker is open or has jobs held ({@code CircuitSeries}; 20
 *   origins, the rest summed into {@code origin="other"}):
 *   {@code delayq_breaker_origin_open}, {@code delayq_breaker_origin_held_jobs}. Their totals over all origins are
 *   the bridged gauges {@code delayq_breaker_open_circuits} and {@code delayq_breaker_held_jobs}.</li>
 * </ul>
 *
 * <p>The Grafana dashboard {@code docs/grafana/delayq.json} is built on these series; GrafanaDashboardTest checks
 * that every series it queries is served.
 */
package io.delayq.service.prometheus;
