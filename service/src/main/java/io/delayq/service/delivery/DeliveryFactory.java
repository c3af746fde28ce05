package io.delayq.service.delivery;

import com.codahale.metrics.MetricRegistry;
import com.fasterxml.jackson.annotation.JsonAlias;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.delayq.core.Backoff;
import io.delayq.core.JobStore;
import io.delayq.core.PolicyDefaults;
import io.delayq.core.RetryPolicy;
import io.delayq.service.breaker.BreakerFactory;
import io.delayq.service.history.TopicActivity;
import io.delayq.service.ratelimit.RateLimitSpec;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MaxDuration;
import io.dropwizard.validation.MinDuration;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotEmpty;
import jakarta.validation.constraints.NotNull;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The {@code delivery:} block of the configuration: how the push engine delivers due jobs.
 *
 * <table>
 *   <caption>delivery settings</caption>
 *   <tr><th>Name</th><th>Default</th><th>Description</th></tr>
 *   <tr><td>{@code signingSecret}</td><td>(required)</td><td>Secret for the {@code Delayq-Signature} HMAC-SHA256
 *       (scheme {@code v2}) of the callbacks and dead notices of operators' topics and of tenants without
 *       secrets of their own; receivers verify with the same secret ({@link Signatures}, {@link TopicSigners}).</td></tr>
 *   <tr><td>{@code maxConcurrency}</td><td>256</td><td>Callbacks in flight at once, all topics together.</td></tr>
 *   <tr><td>{@code maxConcurrencyPerTopic}</td><td>64</td><td>Callbacks in flight at once for one topic, so that
 *       one slow receiver cannot hold every slot.</td></tr>
 *   <tr><td>{@code reserveBatch}</td><td>100</td><td>Most jobs leased by one store call; fewer when fewer
 *       concurrency slots are free, so that leases never wait for a slot.</td></tr>
 *   <tr><td>{@code callbackTimeout}</td><td>30s</td><td>Default time one attempt may take: the lease length and the
 *       HTTP timeout (less a margin so the engine records the outcome before the lease runs out: see
 *       {@link AttemptBudget}), for jobs and topics that set no {@code timeout}. At least 100ms, like a job's or a
 *       topic's {@code timeout}: a shorter lease would end before the engine could record its outcome. Also accepted
 *       as {@code defaultTimeout}.</td></tr>
 *   <tr><td>{@code defaultMaxAttempts}</td><td>10</td><td>Attempts in all, for jobs and topics that set none.</td></tr>
 *   <tr><td>{@code defaultBackoff}</td><td>exponential 1s ×2 up to 1h, jitter 0.2</td><td>Wait after a failed
 *       attempt, for jobs and topics that set none: {@code {type: exponential, initial: 1s, multiplier: 2.0,
 *       max: 1h, jitter: 0.2}} or {@code {type: schedule, delays: [15s, 3m, 10m]}}.</td></tr>
 *   <tr><td>{@code maxRetryAfter}</td><td>1h</td><td>Cap on a receiver's {@code Retry-After} (429/503).</td></tr>
 *   <tr><td>{@code sweepInterval}</td><td>5s</td><td>Safety sweep over all topics for wake-ups that got lost and
 *       for expired leases; not how due jobs are normally found (timers are).</td></tr>
 *   <tr><td>{@code shutdownGracePeriod}</td><td>10s</td><td>On stop, how long in-flight callbacks may finish; the
 *       rest is retried after its lease expires.</td></tr>
 *   <tr><td>{@code ackBatchSize}</td><td>100</td><td>Successful deliveries acknowledged to the store in one call.</td></tr>
 *   <tr><td>{@code ackFlushInterval}</td><td>10ms</td><td>Longest an acknowledgement waits for its batch to fill. Longer means fewer store calls (on Redis at ~1,000 jobs/s, 20ms instead of 5ms cut the store's CPU per job by ~15–20 %) and a job that shows LEASED a little longer after its callback answered.</td></tr>
 *   <tr><td>{@code allowedCallbackHosts}</td><td>[] (any)</td><td>Host names, {@code *.domain} wildcards, addresses
 *       and CIDRs callbacks may go to; when not empty, nothing else is allowed. The only way to reach link-local or
 *       cloud metadata addresses.</td></tr>
 *   <tr><td>{@code allowPrivateNetworks}</td><td>true</td><td>Whether loopback and private addresses (127/8, 10/8,
 *       172.16/12, 192.168/16, fc00::/7, …) may be called; true so that local receivers work out of the box. The
 *       service's own API and admin ports on this host are refused whatever this and the allow-list say
 *       ({@link ServicePorts}).</td></tr>
 *   <tr><td>{@code breaker}</td><td>off</td><td>The endpoint circuit breaker's defaults, which a topic's
 *       {@code breaker} overrides: {@code {enabled: false, failureThreshold: 10, probeInterval: 5s,
 *       maxProbeInterval: 5m, releasePerSecond: 20}} ({@link io.delayq.service.breaker.BreakerFactory}). The shipped
 *       config.yml turns it on.</td></tr>
 *   <tr><td>{@code originRateLimits}</td><td>{} (none)</td><td>Deliveries per second to a callback origin, over
 *       all instances together, whatever topic they come from: {@code {"https://api.partner.com": {perSecond: 50,
 *       burst: 10}}} (keyed by origin, {@code scheme://host[:port]}; {@code burst} left out: a tenth of a second's
 *       worth). Jobs over the limit wait without using an attempt
 *       ({@link io.delayq.service.ratelimit.OriginRateLimits}). A topic's own limit is its {@code rateLimit}
 *       setting.</td></tr>
 * </table>
 */
public class DeliveryFactory {

    @NotEmpty
    private String signingSecret;

    @Min(1)
    private int maxConcurrency = 256;

    @Min(1)
    private int maxConcurrencyPerTopic = 64;

    @Min(1)
    @Max(1000)
    private int reserveBatch = 100;

    @NotNull
    @MinDuration(value = 100, unit = TimeUnit.MILLISECONDS, message = "must be at least 100ms: a shorter lease ends"
            + " before the engine can record the attempt's outcome")
    private Duration callbackTimeout = Duration.seconds(30);

    @Min(1)
    private int defaultMaxAttempts = RetryPolicy.DEFAULT_MAX_ATTEMPTS;

    @Valid
    @NotNull
    private Backoff defaultBackoff = Backoff.defaultBackoff();

    @NotNull
    private Duration maxRetryAfter = Duration.hours(1);

    @NotNull
    @MinDuration(value = 10, unit = TimeUnit.MILLISECONDS)
    private Duration sweepInterval = Duration.seconds(5);

    @NotNull
    private Duration shutdownGracePeriod = Duration.seconds(10);

    @Min(1)
    @Max(1000)
    private int ackBatchSize = 100;

    @NotNull
    private Duration ackFlushInterval = Duration.milliseconds(10);

    @NotNull
    private List<String> allowedCallbackHosts = new ArrayList<>();

    /** How long a callback that answered 202 Accepted has to ack or nack, for topics that do not say. */
    @NotNull
    @MinDuration(value = 1, unit = TimeUnit.SECONDS, message = "must be at least 1s: the receiver confirms over HTTP")
    @MaxDuration(value = 24, unit = TimeUnit.HOURS, message = "must be at most 24h, as a topic's asyncAckTimeout")
    private Duration asyncAckTimeout = Duration.minutes(10);

    private boolean allowPrivateNetworks = true;

    @Valid
    @NotNull
    private BreakerFactory breaker = new BreakerFactory();

    /** Rate limits per callback origin (issue 29); checked when the engine is built. */
    @NotNull
    private Map<String, RateLimitSpec> originRateLimits = new LinkedHashMap<>();

    /** Filled by the application, not the configuration: every guard this factory builds shares it. */
    private final ServicePorts servicePorts = new ServicePorts();

    /** The signer of {@code signingSecret}: operators' topics' callbacks and dead notices, and tenants without secrets. */
    public Signatures signatures() {
        return new Signatures(List.of(signingSecret == null ? "" : signingSecret));
    }

    /**
     * The signers of callbacks and dead notices by topic: a tenant's topics with the tenant's secrets (both during a
     * rotation), the rest with {@code signingSecret}.
     *
     * @param tenants who owns a topic
     */
    public TopicSigners signers(TenantLookup tenants) {
        return new TopicSigners(signatures(), tenants);
    }

    /** The service-wide retry and timeout defaults that job and topic settings fall back to. */
    public PolicyDefaults policyDefaults() {
        return new PolicyDefaults(defaultMaxAttempts, defaultBackoff, callbackTimeout.toMilliseconds());
    }

    /**
     * The callback rules; the service calls {@link CallbackGuard#check} when it accepts a job or a topic callback.
     *
     * @throws IllegalArgumentException when an {@code allowedCallbackHosts} entry is malformed
     */
    public CallbackGuard callbackGuard() {
        return new CallbackGuard(allowedCallbackHosts, allowPrivateNetworks, servicePorts);
    }

    /**
     * The ports this service listens on, which no callback may call at this host's addresses
     * ({@link ServicePorts#register}); shared by every {@link #callbackGuard()}.
     */
    @JsonIgnore
    public ServicePorts servicePorts() {
        return servicePorts;
    }

    /**
     * Builds the engine and registers it with the environment: its lifecycle (register the store's lifecycle
     * before calling this, so the engine stops first), a health check named {@code "engine"} and its metrics under
     * {@code delayq.delivery.}.
     */
    public DeliveryEngine build(JobStore store, io.dropwizard.core.setup.Environment environment) {
        return build(store, environment, TopicActivity.NONE);
    }

    /** As {@link #build(JobStore, io.dropwizard.core.setup.Environment)}, telling {@code activity} each outcome. */
    public DeliveryEngine build(JobStore store, io.dropwizard.core.setup.Environment environment,
                                TopicActivity activity) {
        return build(store, environment, activity, TenantLookup.NONE);
    }

    /**
     * As {@link #build(JobStore, io.dropwizard.core.setup.Environment, TopicActivity)}, sharing delivery between the
     * tenants that own the topics ({@code tenants}) by their weights and signing with their secrets.
     */
    public DeliveryEngine build(JobStore store, io.dropwizard.core.setup.Environment environment,
                                TopicActivity activity, TenantLookup tenants) {
        DeliveryEngine engine = new DeliveryEngine(store, this, environment.metrics(), activity, tenants);
        environment.lifecycle().manage(engine);
        environment.healthChecks().register("engine", engine.healthCheck());
        return engine;
    }

    /** Builds an engine outside Dropwizard (tests, embedding); the caller starts and stops it. */
    public DeliveryEngine build(JobStore store, MetricRegistry metrics) {
        return new DeliveryEngine(store, this, metrics);
    }

    @JsonProperty
    public BreakerFactory getBreaker() {
        return breaker;
    }

    @JsonProperty
    public void setBreaker(BreakerFactory breaker) {
        this.breaker = breaker;
    }

    @JsonProperty
    public Duration getAsyncAckTimeout() {
        return asyncAckTimeout;
    }

    @JsonProperty
    public void setAsyncAckTimeout(Duration asyncAckTimeout) {
        this.asyncAckTimeout = asyncAckTimeout;
    }

    @JsonProperty
    public String getSigningSecret() {
        return signingSecret;
    }

    @JsonProperty
    public void setSigningSecret(String signingSecret) {
        this.signingSecret = signingSecret;
    }

    @JsonProperty
    public int getMaxConcurrency() {
        return maxConcurrency;
    }

    @JsonProperty
    public void setMaxConcurrency(int maxConcurrency) {
        this.maxConcurrency = maxConcurrency;
    }

    @JsonProperty
    public int getMaxConcurrencyPerTopic() {
        return maxConcurrencyPerTopic;
    }

    @JsonProperty
    public void setMaxConcurrencyPerTopic(int maxConcurrencyPerTopic) {
        this.maxConcurrencyPerTopic = maxConcurrencyPerTopic;
    }

    @JsonProperty
    public int getReserveBatch() {
        return reserveBatch;
    }

    @JsonProperty
    public void setReserveBatch(int reserveBatch) {
        this.reserveBatch = reserveBatch;
    }

    @JsonProperty
    public Duration getCallbackTimeout() {
        return callbackTimeout;
    }

    @JsonProperty
    @JsonAlias("defaultTimeout")
    public void setCallbackTimeout(Duration callbackTimeout) {
        this.callbackTimeout = callbackTimeout;
    }

    /** The same as {@link #getCallbackTimeout()}: the default lease length of one attempt. */
    public Duration getDefaultTimeout() {
        return callbackTimeout;
    }

    @JsonProperty
    public int getDefaultMaxAttempts() {
        return defaultMaxAttempts;
    }

    @JsonProperty
    public void setDefaultMaxAttempts(int defaultMaxAttempts) {
        this.defaultMaxAttempts = defaultMaxAttempts;
    }

    @JsonProperty
    public Backoff getDefaultBackoff() {
        return defaultBackoff;
    }

    @JsonProperty
    public void setDefaultBackoff(Backoff defaultBackoff) {
        this.defaultBackoff = defaultBackoff;
    }

    @JsonProperty
    public Duration getMaxRetryAfter() {
        return maxRetryAfter;
    }

    @JsonProperty
    public void setMaxRetryAfter(Duration maxRetryAfter) {
        this.maxRetryAfter = maxRetryAfter;
    }

    @JsonProperty
    public Duration getSweepInterval() {
        return sweepInterval;
    }

    @JsonProperty
    public void setSweepInterval(Duration sweepInterval) {
        this.sweepInterval = sweepInterval;
    }

    @JsonProperty
    public Duration getShutdownGracePeriod() {
        return shutdownGracePeriod;
    }

    @JsonProperty
    public void setShutdownGracePeriod(Duration shutdownGracePeriod) {
        this.shutdownGracePeriod = shutdownGracePeriod;
    }

    @JsonProperty
    public int getAckBatchSize() {
        return ackBatchSize;
    }

    @JsonProperty
    public void setAckBatchSize(int ackBatchSize) {
        this.ackBatchSize = ackBatchSize;
    }

    @JsonProperty
    public Duration getAckFlushInterval() {
        return ackFlushInterval;
    }

    @JsonProperty
    public void setAckFlushInterval(Duration ackFlushInterval) {
        this.ackFlushInterval = ackFlushInterval;
    }

    @JsonProperty
    public List<String> getAllowedCallbackHosts() {
        return allowedCallbackHosts;
    }

    @JsonProperty
    public void setAllowedCallbackHosts(List<String> allowedCallbackHosts) {
        this.allowedCallbackHosts = allowedCallbackHosts;
    }

    @JsonProperty
    public boolean isAllowPrivateNetworks() {
        return allowPrivateNetworks;
    }

    @JsonProperty
    public void setAllowPrivateNetworks(boolean allowPrivateNetworks) {
        this.allowPrivateNetworks = allowPrivateNetworks;
    }

    @JsonProperty
    public Map<String, RateLimitSpec> getOriginRateLimits() {
        return originRateLimits;
    }

    @JsonProperty
    public void setOriginRateLimits(Map<String, RateLimitSpec> originRateLimits) {
        this.originRateLimits = originRateLimits == null ? new LinkedHashMap<>() : originRateLimits;
    }
}
