package io.delayq.service.breaker;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.delayq.core.breaker.BreakerPolicy;
import io.delayq.core.breaker.CircuitBreakers;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MaxDuration;
import io.dropwizard.validation.MinDuration;
import io.dropwizard.validation.ValidationMethod;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;

import java.util.concurrent.TimeUnit;

/**
 * The {@code delivery.breaker:} block of the configuration: the endpoint circuit breaker's service-wide defaults, which
 * a topic's {@code breaker} settings override field by field ({@link TopicBreakerPolicies}).
 *
 * <table>
 *   <caption>breaker settings</caption>
 *   <tr><th>Name</th><th>Default</th><th>Description</th></tr>
 *   <tr><td>{@code enabled}</td><td>false (the shipped config.yml sets true)</td><td>Whether callbacks go through
 *       the breaker, for topics that do not say. Off by default in code so that an old configuration keeps its
 *       behaviour.</td></tr>
 *   <tr><td>{@code failureThreshold}</td><td>10</td><td>Consecutive failed attempts (connection failure, timeout,
 *       5xx) to one origin that open its circuit.</td></tr>
 *   <tr><td>{@code probeInterval}</td><td>5s</td><td>Wait before the first probe of an open circuit; doubles after
 *       each failed probe.</td></tr>
 *   <tr><td>{@code maxProbeInterval}</td><td>5m</td><td>Cap of that wait.</td></tr>
 *   <tr><td>{@code releasePerSecond}</td><td>20</td><td>After the circuit closes, jobs per second per service
 *       instance sent to the origin while its held jobs drain.</td></tr>
 *   <tr><td>{@code minTimeout}</td><td>5s</td><td>A timed-out attempt counts as a failure of its origin only when it
 *       was allowed at least this long (0s to 1h): a job's timeout shorter than the origin's real answer time is the
 *       job's failure, and must not open the circuit other topics' jobs to the origin go through.</td></tr>
 *   <tr><td>{@code maxOrigins}</td><td>10000</td><td>Origins with a circuit in the store at most (1 to 1,000,000):
 *       beyond, a new origin's failures are not tracked (its callbacks go untracked), with the meter
 *       {@code delayq.breaker.untracked-origins} and a WARN at most once a minute.</td></tr>
 *   <tr><td>{@code idleExpiry}</td><td>1h</td><td>A closed circuit whose last change is older than this is forgotten
 *       (1m to 7d); an open one never is.</td></tr>
 * </table>
 */
public class BreakerFactory {
    private boolean enabled = false;

    @Min(1)
    @Max(10_000)
    private int failureThreshold = 10;

    @NotNull
    @MinDuration(value = 100, unit = TimeUnit.MILLISECONDS)
    @MaxDuration(value = 24, unit = TimeUnit.HOURS)
    private Duration probeInterval = Duration.seconds(5);

    @NotNull
    @MinDuration(value = 100, unit = TimeUnit.MILLISECONDS)
    @MaxDuration(value = 24, unit = TimeUnit.HOURS)
    private Duration maxProbeInterval = Duration.minutes(5);

    @Min(1)
    @Max(100_000)
    private int releasePerSecond = 20;

    @NotNull
    @MaxDuration(value = 1, unit = TimeUnit.HOURS)
    private Duration minTimeout = Duration.seconds(5);

    @Min(1)
    @Max(1_000_000)
    private int maxOrigins = CircuitBreakers.DEFAULT_MAX_ORIGINS;

    @NotNull
    @MinDuration(value = 1, unit = TimeUnit.MINUTES)
    @MaxDuration(value = 7, unit = TimeUnit.DAYS)
    private Duration idleExpiry = Duration.milliseconds(CircuitBreakers.DEFAULT_IDLE_EXPIRY_MS);

    /** Origins with a circuit at most; a new one beyond is not tracked. */
    @JsonProperty
    public int getMaxOrigins() {
        return maxOrigins;
    }

    @JsonProperty
    public void setMaxOrigins(int maxOrigins) {
        this.maxOrigins = maxOrigins;
    }

    /** How long a closed circuit is kept after its last change. */
    @JsonProperty
    public Duration getIdleExpiry() {
        return idleExpiry;
    }

    @JsonProperty
    public void setIdleExpiry(Duration idleExpiry) {
        this.idleExpiry = idleExpiry;
    }

    /** The defaults as a policy that topic settings are laid over. */
    public BreakerPolicy policy() {
        return new BreakerPolicy(enabled, failureThreshold, probeInterval.toMilliseconds(),
                maxProbeInterval.toMilliseconds(), releasePerSecond);
    }

    @JsonIgnore
    @ValidationMethod(message = "maxProbeInterval must not be shorter than probeInterval")
    public boolean isProbeCapAboveInterval() {
        return probeInterval == null || maxProbeInterval == null
                || maxProbeInterval.toMilliseconds() >= probeInterval.toMilliseconds();
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
    public int getFailureThreshold() {
        return failureThreshold;
    }

    @JsonProperty
    public void setFailureThreshold(int failureThreshold) {
        this.failureThreshold = failureThreshold;
    }

    @JsonProperty
    public Duration getProbeInterval() {
        return probeInterval;
    }

    @JsonProperty
    public void setProbeInterval(Duration probeInterval) {
        this.probeInterval = probeInterval;
    }

    @JsonProperty
    public Duration getMaxProbeInterval() {
        return maxProbeInterval;
    }

    @JsonProperty
    public void setMaxProbeInterval(Duration maxProbeInterval) {
        this.maxProbeInterval = maxProbeInterval;
    }

    /** Timeouts of attempts allowed less than this are not failures of their origin. */
    @JsonProperty
    public Duration getMinTimeout() {
        return minTimeout;
    }

    @JsonProperty
    public void setMinTimeout(Duration minTimeout) {
        this.minTimeout = minTimeout;
    }

    @JsonProperty
    public int getReleasePerSecond() {
        return releasePerSecond;
    }

    @JsonProperty
    public void setReleasePerSecond(int releasePerSecond) {
        this.releasePerSecond = releasePerSecond;
    }
}
