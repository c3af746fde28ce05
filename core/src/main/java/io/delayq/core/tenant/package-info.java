/**
 * Many teams on one delayq: {@link io.delayq.core.tenant.Tenant tenants} own topics by
 * {@link io.delayq.core.tenant.TopicPattern pattern}; {@link io.delayq.core.tenant.ApiToken API tokens} act for one
 * tenant (or for none: the operators, who see every topic). Tenants and tokens declared in {@code config.yml} live in
 * the service's configuration; those made through the API live in the store's
 * {@link io.delayq.core.tenant.TenantRegistry}, one compare-and-set version for all of them, read whole by every
 * instance when the version moves. Quotas' counters and rate limits are token buckets in the store
 * ({@link io.delayq.core.ratelimit.RateLimiters}); pending jobs are the tenant's topics' counters added up
 * ({@link io.delayq.core.JobStore#stats(java.util.Collection)}).
 */
package io.delayq.core.tenant;
