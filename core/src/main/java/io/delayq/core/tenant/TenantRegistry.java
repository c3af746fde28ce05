package io.delayq.core.tenant;

import java.util.Map;

/**
 * The tenants and API tokens made through the API, kept in the store so that every instance sees a change within
 * seconds without a restart. (Those declared in {@code config.yml} are the service's own and never stored.)
 *
 * <p>Every change is a compare-and-set on one version number for all of them: a writer reads a
 * {@linkplain #read() snapshot}, checks its change against it (a new tenant's patterns against every other tenant's),
 * and writes only if the version has not moved meanwhile — otherwise it reads again and checks again. So two
 * instances can never both accept overlapping patterns, and instances poll {@link #version()}, one small read, to know
 * when to read the snapshot again. Changes are rare (made by people), so one version for all costs nothing.
 *
 * <p>{@link #recordUse} is the exception: instances report when tokens were last used (at most once a minute each),
 * without moving the version.
 */
public interface TenantRegistry {

    /** The version of the last change; 0 before the first. */
    long version();

    /** Every tenant and token, and the version they were read at (one atomic read). */
    TenancySnapshot read();

    /**
     * Creates or replaces the tenant of that name, if the version is still {@code expectedVersion}.
     *
     * @return whether it was written (the version then moved by one)
     */
    boolean putTenant(Tenant tenant, long expectedVersion);

    /** Deletes the tenant, if the version is still {@code expectedVersion}; deleting a missing one writes nothing. */
    boolean deleteTenant(String name, long expectedVersion);

    /** Creates or replaces a token (by its {@link ApiToken#key()}), if the version is still {@code expectedVersion}. */
    boolean putToken(ApiToken token, long expectedVersion);

    /** Deletes a token record, if the version is still {@code expectedVersion}. */
    boolean deleteToken(TokenKey key, long expectedVersion);

    /** Raises each token's last use to the given time (never lowers it); the version does not move. */
    void recordUse(Map<TokenKey, Long> lastUsedAtMs);
}
