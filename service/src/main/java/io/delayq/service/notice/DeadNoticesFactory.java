package io.delayq.service.notice;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.delayq.core.JobStore;
import io.delayq.core.archive.JobArchive;
import io.delayq.service.delivery.CallbackGuard;
import io.delayq.service.delivery.Signatures;
import io.delayq.service.delivery.TopicSigners;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MaxDuration;
import io.dropwizard.validation.MinDuration;
import io.dropwizard.validation.ValidationMethod;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;

import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The {@code deadNotices:} block of the configuration: how the notices of dead jobs (their {@code onDead} targets)
 * are sent and retried.
 *
 * <table>
 *   <caption>dead-notice settings</caption>
 *   <tr><th>Name</th><th>Default</th><th>Description</th></tr>
 *   <tr><td>{@code enabled}</td><td>true</td><td>Whether this instance sends notices (at least one instance of a
 *       deployment should).</td></tr>
 *   <tr><td>{@code maxAttempts}</td><td>5</td><td>Attempts per notice in all (1 to 100); after the last failed one the
 *       notice is FAILED on its dead letter.</td></tr>
 *   <tr><td>{@code initialBackoff}</td><td>1s</td><td>Wait after the first failed attempt; doubles after each further
 *       one.</td></tr>
 *   <tr><td>{@code maxBackoff}</td><td>5m</td><td>Cap of that wait.</td></tr>
 *   <tr><td>{@code timeout}</td><td>10s</td><td>How long one attempt may take (100ms to 5m).</td></tr>
 *   <tr><td>{@code batchSize}</td><td>100</td><td>Notices claimed and sent at once per pass (1 to 1000).</td></tr>
 *   <tr><td>{@code pollInterval}</td><td>1s</td><td>How often the archive is asked for due notices.</td></tr>
 * </table>
 * The signature and the address rules are the callbacks' ({@code delivery.signingSecret},
 * {@code delivery.allowedCallbackHosts}, {@code delivery.allowPrivateNetworks}).
 */
public class DeadNoticesFactory {
    private boolean enabled = true;

    @Min(1)
    @Max(100)
    private int maxAttempts = 5;

    @NotNull
    @MinDuration(value = 1, unit = TimeUnit.MILLISECONDS)
    @MaxDuration(value = 24, unit = TimeUnit.HOURS)
    private Duration initialBackoff = Duration.seconds(1);

    @NotNull
    @MaxDuration(value = 24, unit = TimeUnit.HOURS)
    private Duration maxBackoff = Duration.minutes(5);

    @NotNull
    @MinDuration(value = 100, unit = TimeUnit.MILLISECONDS)
    @MaxDuration(value = 5, unit = TimeUnit.MINUTES)
    private Duration timeout = Duration.seconds(10);

    @Min(1)
    @Max(1000)
    private int batchSize = 100;

    @NotNull
    @MinDuration(value = 10, unit = TimeUnit.MILLISECONDS)
    @MaxDuration(value = 1, unit = TimeUnit.HOURS)
    private Duration pollInterval = Duration.seconds(1);

    @JsonIgnore
    @ValidationMethod(message = "maxBackoff must be at least initialBackoff")
    public boolean isMaxBackoffAtLeastInitialBackoff() {
        return initialBackoff == null || maxBackoff == null
                || maxBackoff.toMilliseconds() >= initialBackoff.toMilliseconds();
    }

    /** The retry policy of notices. */
    public NoticePolicy policy() {
        return new NoticePolicy(maxAttempts, initialBackoff.toMilliseconds(), maxBackoff.toMilliseconds(),
                timeout.toMilliseconds());
    }

    /**
     * Builds the sender and registers it with the environment: its lifecycle (register the store's and the archive's
     * before calling this, so that it stops first) and the {@value DeadNoticeSender#HEALTH_CHECK} health check.
     *
     * @return the sender, or empty when {@code enabled} is false
     */
    public Optional<DeadNoticeSender> build(JobStore store, JobArchive archive, CallbackGuard guard,
                                            Signatures signatures, Environment environment) {
        return build(store, archive, guard, TopicSigners.serviceOnly(signatures), environment);
    }

    /** As above, signing each notice with the secrets of its topic's owner ({@link TopicSigners}). */
    public Optional<DeadNoticeSender> build(JobStore store, JobArchive archive, CallbackGuard guard,
                                            TopicSigners signers, Environment environment) {
        if (!enabled) {
            return Optional.empty();
        }
        DeadNoticeSender sender = new DeadNoticeSender(store, archive, policy(), batchSize,
                pollInterval.toMilliseconds(), guard, signers, environment.metrics());
        environment.lifecycle().manage(sender);
        environment.healthChecks().register(DeadNoticeSender.HEALTH_CHECK, sender.healthCheck());
        return Optional.of(sender);
    }

    @JsonProperty
    public boolean isEnabled() {
        return enabled;
    }

    @JsonProperty
    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
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
    public Duration getInitialBackoff() {
        return initialBackoff;
    }

    @JsonProperty
    public void setInitialBackoff(Duration initialBackoff) {
        this.initialBackoff = initialBackoff;
    }

    @JsonProperty
    public Duration getMaxBackoff() {
        return maxBackoff;
    }

    @JsonProperty
    public void setMaxBackoff(Duration maxBackoff) {
        this.maxBackoff = maxBackoff;
    }

    @JsonProperty
    public Duration getTimeout() {
        return timeout;
    }

    @JsonProperty
    public void setTimeout(Duration timeout) {
        this.timeout = timeout;
    }

    @JsonProperty
    public int getBatchSize() {
        return batchSize;
    }

    @JsonProperty
    public void setBatchSize(int batchSize) {
        this.batchSize = batchSize;
    }

    @JsonProperty
    public Duration getPollInterval() {
        return pollInterval;
    }

    @JsonProperty
    public void setPollInterval(Duration pollInterval) {
        this.pollInterval = pollInterval;
    }
}
