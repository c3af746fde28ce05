/**
 * Prometheus exposition on the admin port, {@code GET /metrics/prometheus} (text format 0.0.4, or OpenMetrics when
 * the {@code Accept} header asks for {@code application/openmetrics-text}), through the official Prometheus Java
 * client ({@code io.prometheus:prometheus-metrics-*}): its registry, its JVM instrumentation and its servlet. Every name
 * follows Prometheus's naming conventions (snake_case, base units in the name, {@code _total} on counters, no two
 * families for one measurement); {@code PrometheusNamingTest} checks every family a running service serves.
 *
 * <h2>Series</h2>
 * <ul>
 *   <li>Per topic, label {@code topic} with bounded cardinality ({@code prometheus.topicLimit} topics, default 50,
 *   the rest folded into {@code topic="other"}, {@link io.delayq.service.prometheus.TopicLabels}): counters
 *   {@code delayq_topic_enqueued_total}, {@code delayq_topic_delivered_total}, {@code delayq_topic_failed_total},
 *   {@code delayq_topic_dead_total} (this instance's); gauges {@code delayq_topic_scheduled},
 *   {@code delayq_topic_leased} (the store's, the same on every instance).</li>
 *   <li>Histograms with explicit buckets from 1 ms to 10 min ({@link io.delayq.service.prometheus.LatencyBuckets}):
 *   {@code delayq_delivery_lateness_seconds} (due time to the start of delivery) and
 *   {@code delayq_delivery_callback_latency_seconds}.</li>
 *   <li>The circuit breakers ({@code CircuitSeries}), from the store, the same on every instance:
 *   {@code delayq_breaker_open_circuits}, {@code delayq_breaker_held_jobs} (held now), and per callback origin (20
 *   origins, the rest summed into {@code origin="other"}) {@code delayq_breaker_origin_open},
 *   {@code delayq_breaker_origin_held_jobs}. The holds this instance made are the counter
 *   {@code delayq_breaker_holds_total}.</li>
 *   <li>{@code delayq_store_up}, {@code delayq_archive_up} ({@code HealthSeries}): 1 or 0 by this instance's scheduled
 *   health checks.</li>
 *   <li>The client's JVM instrumentation: {@code jvm_memory_used_bytes{area}}, {@code jvm_gc_collection_seconds},
 *   {@code jvm_threads_*}, {@code process_cpu_seconds_total}, ...</li>
 *   <li>Every other Dropwizard metric, bridged ({@code DropwizardBridge}) under the name {@code BridgedMetrics} gives
 *   it: the engine's {@code delayq_delivery_*_total}, {@code delayq_archive_backlog}, {@code
 *   delayq_consumer_parked_lease_requests}, the Jersey timers as {@code delayq_api_*_seconds{resource, method}},
 *   Jetty's, logback's {@code logback_events_total{level}}, the health module's; the ones with a native series above
 *   are left out.</li>
 *   <li>Per tenant, how this instance shares delivery ({@code TenantShareSeries}; label {@code tenant}, the
 *   operators' topics as {@code (operators)}): gauges {@code delayq_delivery_tenant_slots},
 *   {@code delayq_delivery_tenant_waiting_topics}, {@code delayq_delivery_tenant_weight}; counters
 *   {@code delayq_delivery_tenant_turns_total}, {@code delayq_delivery_tenant_reserved_total}.</li>
 *   <li>Per tenant, its quota use ({@code TenantQuotaSeries}; label {@code tenant}), store-wide and the same on every
 *   instance (aggregate with {@code max}), read every 15 s on a timer: gauges {@code delayq_tenant_pending_jobs},
 *   {@code delayq_tenant_pending_jobs_limit}, {@code delayq_tenant_topics}, {@code delayq_tenant_topics_limit}; and
 *   this instance's refusals, counter {@code delayq_tenant_quota_exceeded_total{tenant, quota}}.</li>
 * </ul>
 *
 * <p>A gauge whose value is unknown has no sample: the store-read gauges ({@code delayq_topic_scheduled},
 * {@code delayq_topic_leased}, {@code delayq_archive_backlog}, {@code delayq_archive_quarantine}, the breaker's, {@code
 * delayq_notices_due}) while their read fails, rather than a {@code -1} that a sum or an alert would take for a value.
 *
 * <p>The Grafana dashboard {@code docs/grafana/delayq.json} is built on these series: {@code PrometheusEndpointTest}
 * checks that every series it queries is served, {@code DashboardOnPrometheusTest} what each panel answers from a real
 * Prometheus scraping two instances.
 */
package io.delayq.service.prometheus;
