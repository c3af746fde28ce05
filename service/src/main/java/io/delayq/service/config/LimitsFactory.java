package io.delayq.service.config;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.delayq.core.JobRules;
import io.dropwizard.util.DataSize;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MaxDataSize;
import io.dropwizard.validation.MinDataSize;
import io.dropwizard.validation.MinDuration;
import io.dropwizard.validation.ValidationMethod;
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
 *   <tr><td>{@code maxCallbackHeaders}</td><td>{@code 32}</td>
 *       <td>Most {@code callback.headers} of a job or topic.</td></tr>
 *   <tr><td>{@code maxCallbackHeaderBytes}</td><td>{@code 8KiB}</td>
 *       <td>{@code callback.headers} names and values together, in UTF-8 bytes.</td></tr>
 *   <tr><td>{@code maxJobBytes}</td><td>{@code maxPayloadBytes} + 64KiB</td>
 *       <td>A whole job: payload, topic, id, callback and backoff (as JSON) together; at least
 *       {@code maxPayloadBytes}.</td></tr>
 * </table>
 *
 * <p>Backoff waits are bounded by {@code maxDelay} and a schedule backoff by {@code maxAttempts} delays, so that no
 * part of a job is unbounded (see {@link JobRules}).
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
    private int maxAttempts = JobRules.DEFAULT_MAX_ATTEMPTS;

    @NotNull
    @MinDataSize(1024)
    private DataSize maxRequestBytes = DataSize.mebibytes(16);

    @Min(0)
    @Max(1000)
    private int maxCallbackHeaders = JobRules.DEFAULT_MAX_CALLBACK_HEADERS;

    @NotNull
    @MaxDataSize(value = 1, unit = io.dropwizard.util.DataSizeUnit.MEBIBYTES)
    private DataSize maxCallbackHeaderBytes = DataSize.bytes(JobRules.DEFAULT_MAX_CALLBACK_HEADER_BYTES);

    /** {@code null}: {@code maxPayloadBytes} + 64KiB, so that raising the payload limit alone keeps jobs accepted. */
    @MaxDataSize(value = 64, unit = io.dropwizard.util.DataSizeUnit.MEBIBYTES)
    private DataSize maxJobBytes;

    @JsonIgnore
    @ValidationMethod(message = "maxJobBytes must be at least maxPayloadBytes: a whole job holds its payload")
    public boolean isMaxJobBytesAtLeastMaxPayloadBytes() {
        return maxJobBytes == null || maxPayloadBytes == null
                || maxJobBytes.toBytes() >= maxPayloadBytes.toBytes();
    }

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

    @JsonProperty
    public int getMaxCallbackHeaders() {
        return maxCallbackHeaders;
    }

    @JsonProperty
    public void setMaxCallbackHeaders(int maxCallbackHeaders) {
        this.maxCallbackHeaders = maxCallbackHeaders;
    }

    @JsonProperty
    public DataSize getMaxCallbackHeaderBytes() {
        return maxCallbackHeaderBytes;
    }

    @JsonProperty
    public void setMaxCallbackHeaderBytes(DataSize maxCallbackHeaderBytes) {
        this.maxCallbackHeaderBytes = maxCallbackHeaderBytes;
    }

    /** The configured whole-job limit, or {@code null} for the default ({@code maxPayloadBytes} + 64KiB). */
    @JsonProperty
    public DataSize getMaxJobBytes() {
        return maxJobBytes;
    }

    @JsonProperty
    public void setMaxJobBytes(DataSize maxJobBytes) {
        this.maxJobBytes = maxJobBytes;
    }

    /** The core validation rules these limits stand for. */
    public JobRules jobRules() {
        int payload = Math.toIntExact(maxPayloadBytes.toBytes());
        return new JobRules(payload, maxDelay.toMilliseconds(), maxAttempts, maxCallbackHeaders,
                Math.toIntExact(maxCallbackHeaderBytes.toBytes()),
                maxJobBytes == null ? JobRules.defaultMaxJobBytes(payload) : Math.toIntExact(maxJobBytes.toBytes()));
    }
}
