package io.delayq.service.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.delayq.core.JobRules;
import io.dropwizard.util.DataSize;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MaxDataSize;
import io.dropwizard.validation.MinDataSize;
import io.dropwizard.validation.MinDuration;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;

import java.util.concurrent.TimeUnit;

/**
 * What the producer API accepts ({@code limits:} in the configuration).
 *
 * <table>
 *   <caption>limits</caption>
 *   <tr><th>Name</th><th>Default</th><th>Description</th></tr>
 *   <tr><td>{@code maxPayloadBytes}</td><td>{@code 64KiB}</td>
 *       <td>Largest payload of one job, measured as compact JSON (e.g. {@code 64KiB}, {@code 1MiB}).</td></tr>
 *   <tr><td>{@code maxDelay}</td><td>{@code 365d}</td>
 *       <td>How far ahead a job may be scheduled.</td></tr>
 *   <tr><td>{@code maxBatchSize}</td><td>{@code 1000}</td>
 *       <td>Most jobs in one {@code POST …/jobs/batch}.</td></tr>
 *   <tr><td>{@code maxAttempts}</td><td>{@code 100}</td>
 *       <td>Highest {@code maxAttempts} a job or topic may ask for.</td></tr>
 *   <tr><td>{@code maxRequestBytes}</td><td>{@code 16MiB}</td>
 *       <td>Largest request body; larger ones are refused with 413 before they are parsed.</td></tr>
 * </table>
 */
public class LimitsFactory {
    @NotNull
    @MinDataSize(1)
    @MaxDataSize(value = 16, unit = io.dropwizard.util.DataSizeUnit.MEBIBYTES)
    private DataSize maxPayloadBytes = DataSize.bytes(JobRules.DEFAULT_MAX_PAYLOAD_BYTES);

    @NotNull
    @MinDuration(value = 1, unit = TimeUnit.SECONDS)
    private Duration maxDelay = Duration.days(365);

    @Min(1)
    @Max(10_000)
    private int maxBatchSize = 1000;

    @Min(1)
    @Max(10_000)
    private int maxAttempts = 100;

    @NotNull
    @MinDataSize(1024)
    private DataSize maxRequestBytes = DataSize.mebibytes(16);

    @JsonProperty
    public DataSize getMaxPayloadBytes() {
        return maxPayloadBytes;
    }

    @JsonProperty
    public void setMaxPayloadBytes(DataSize maxPayloadBytes) {
        this.maxPayloadBytes = maxPayloadBytes;
    }

    @JsonProperty
    public Duration getMaxDelay() {
        return maxDelay;
    }

    @JsonProperty
    public void setMaxDelay(Duration maxDelay) {
        this.maxDelay = maxDelay;
    }

    @JsonProperty
    public int getMaxBatchSize() {
        return maxBatchSize;
    }

    @JsonProperty
    public void setMaxBatchSize(int maxBatchSize) {
        this.maxBatchSize = maxBatchSize;
    }

    @JsonProperty
    public int getMaxAttempts() {
        return maxAttempts;
    }

    @JsonProperty
    public void setMaxAttempts(int maxAttempts) {
        this.maxAttempts = maxAttempts;
    }

    @JsonProperty
    public DataSize getMaxRequestBytes() {
        return maxRequestBytes;
    }

    @JsonProperty
    public void setMaxRequestBytes(DataSize maxRequestBytes) {
        this.maxRequestBytes = maxRequestBytes;
    }

    /** The core validation rules these limits stand for. */
    public JobRules jobRules() {
        return new JobRules(Math.toIntExact(maxPayloadBytes.toBytes()), maxDelay.toMilliseconds());
    }
}
