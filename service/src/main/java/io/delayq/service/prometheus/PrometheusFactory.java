package io.delayq.service.prometheus;

import com.fasterxml.jackson.annotation.JsonProperty;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;

/** The Prometheus exposition's settings ({@code prometheus:} in config.yml; left out, the defaults apply). */
public class PrometheusFactory {
    /** Topics with series of their own; the rest share {@code topic="other"}. */
    @Min(1)
    @Max(10_000)
    private int topicLimit = 50;

    @JsonProperty
    public int getTopicLimit() {
        return topicLimit;
    }

    @JsonProperty
    public void setTopicLimit(int topicLimit) {
        this.topicLimit = topicLimit;
    }
}
