package io.delayq.service.prometheus;

import io.delayq.core.DeadCause;
import io.delayq.service.history.TopicActivity;
import io.prometheus.metrics.expositionformats.ExpositionFormats;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The per-topic counters keep at most topicLimit topics of their own; lateness lands in its bucket. */
class PrometheusTopicActivityTest {
    private final PrometheusRegistry registry = new PrometheusRegistry();

    @Test
    void foldsTopicsBeyondTheLimitIntoOther() throws IOException {
        TopicActivity activity = new PrometheusTopicActivity(registry, new TopicLabels(2));
        activity.delivered("a");
        activity.delivered("b");
        activity.delivered("c"); // the third topic: over the limit
        activity.delivered("d");
        activity.delivered("a"); // a keeps its own series
        activity.enqueued("b", 3);
        activity.failed("e");
        activity.dead("e", DeadCause.ATTEMPTS_EXHAUSTED, 1);

        Exposition scraped = scrape();
        assertThat(scraped.samples("delayq_topic_delivered_total")).extracting(s -> s.label("topic"))
                .containsExactlyInAnyOrder("a", "b", "other");
        assertThat(scraped.value("delayq_topic_delivered_total", Map.of("topic", "a"))).isEqualTo(2.0);
        assertThat(scraped.value("delayq_topic_delivered_total", Map.of("topic", "other"))).isEqualTo(2.0);
        assertThat(scraped.value("delayq_topic_enqueued_total", Map.of("topic", "b"))).isEqualTo(3.0);
        assertThat(scraped.value("delayq_topic_failed_total", Map.of("topic", "other"))).isEqualTo(1.0);
        assertThat(scraped.value("delayq_topic_dead_total", Map.of("topic", "other"))).isEqualTo(1.0);
        assertThat(scraped.type("delayq_topic_delivered_total")).as("0.0.4 names the family with _total")
                .isEqualTo("counter");
    }

    @Test
    void latenessIsAHistogramInSecondsWithBucketsFromMillisecondsToMinutes() throws IOException {
        TopicActivity activity = new PrometheusTopicActivity(registry, new TopicLabels(50));
        activity.started("t", 3);        // 3 ms
        activity.started("t", 90_000);   // a minute and a half
        activity.started("t", -5);       // a clock step: counted as on time

        Exposition scraped = scrape();
        assertThat(scraped.type("delayq_delivery_lateness_seconds")).isEqualTo("histogram");
        assertThat(scraped.value("delayq_delivery_lateness_seconds_count", Map.of())).isEqualTo(3.0);
        assertThat(scraped.value("delayq_delivery_lateness_seconds_bucket", Map.of("le", "0.001"))).isEqualTo(1.0);
        assertThat(scraped.value("delayq_delivery_lateness_seconds_bucket", Map.of("le", "0.005"))).isEqualTo(2.0);
        assertThat(scraped.value("delayq_delivery_lateness_seconds_bucket", Map.of("le", "60.0"))).isEqualTo(2.0);
        assertThat(scraped.value("delayq_delivery_lateness_seconds_bucket", Map.of("le", "120.0"))).isEqualTo(3.0);
        assertThat(scraped.value("delayq_delivery_lateness_seconds_bucket", Map.of("le", "600.0"))).isEqualTo(3.0);
    }

    @Test
    void aTopicLimitBelowOneIsRefused() {
        assertThatThrownBy(() -> new TopicLabels(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least 1");
    }

    @Test
    void theCompositeTellsEveryPart() throws IOException {
        PrometheusRegistry other = new PrometheusRegistry();
        TopicActivity both = CompositeTopicActivity.of(new PrometheusTopicActivity(registry, new TopicLabels(5)),
                new PrometheusTopicActivity(other, new TopicLabels(5)));
        both.dead("x", DeadCause.ATTEMPTS_EXHAUSTED, 1);
        assertThat(scrape().value("delayq_topic_dead_total", Map.of("topic", "x"))).isEqualTo(1.0);
        assertThat(scrape(other).value("delayq_topic_dead_total", Map.of("topic", "x"))).isEqualTo(1.0);
        assertThatThrownBy(CompositeTopicActivity::of).isInstanceOf(IllegalArgumentException.class);
    }

    private Exposition scrape() throws IOException {
        return scrape(registry);
    }

    private static Exposition scrape(PrometheusRegistry registry) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ExpositionFormats.init().getPrometheusTextFormatWriter().write(out, registry.scrape());
        return Exposition.parseText(out.toString(StandardCharsets.UTF_8));
    }
}
