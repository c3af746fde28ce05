package io.delayq.service.prometheus;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MinDuration;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;

import java.util.concurrent.TimeUnit;

/** The Prometheus exposition's settings ({@code prometheus:} in config.yml; left out, the defaults apply). */
public class PrometheusFactory {
    /** Topics with series of their own; the rest share {@code topic="other"}. */
    @Min(1)
    @Max(10_000)
    private int topicLimit = 50;

    /**
     * How often each tenant's quota use is read from the store for the {@code delayq_tenant_*} gauges (a timer, not
     * per scrape: every scrape in between answers the last reading).
     */
    @MinDuration(value = 1, unit = TimeUnit.SECONDS)
    private Duration tenantUseInterval = Duration.seconds(15);

    @JsonProperty
    public Duration getTenantUseInterval() {
        return tenantUseInterval;
    }

    @JsonProperty
    public void setTenantUseInterval(Duration tenantUseInterval) {
        this.tenantUseInterval = tenantUseInterval;
    }

    @JsonProperty
    public int getTopicLimit() {
        return topicLimit;
    }

    @JsonProperty
    public void setTopicLimit(int topicLimit) {
        this.topicLimit = topicLimit;
    }
}
