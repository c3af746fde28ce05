package io.delayq.service.prometheus;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The dashboard test is only as good as its extraction of metric names from PromQL. */
class DashboardQueriesTest {
    @Test
    void findsMetricNamesAndNothingElse() {
        assertThat(DashboardQueries.metricNames(
                "histogram_quantile(0.99, sum by (le) (rate(delayq_delivery_lateness_seconds_bucket[$__rate_interval])))"))
                .containsExactly("delayq_delivery_lateness_seconds_bucket");
        assertThat(DashboardQueries.metricNames(
                "sum by (topic) (rate(delayq_topic_dead_total{topic=~\"$topic\", x=\"a b\"}[5m])) / on (topic) "
                        + "group_left sum(jvm_memory_heap_max) * 1e3"))
                .containsExactly("delayq_topic_dead_total", "jvm_memory_heap_max");
        assertThat(DashboardQueries.metricNames("label_values(delayq_topic_enqueued_total, topic)"))
                .containsExactly("delayq_topic_enqueued_total");
        assertThat(DashboardQueries.metricNames("max(delayq_archive_backlog) or vector(0)"))
                .containsExactly("delayq_archive_backlog");
    }
}
