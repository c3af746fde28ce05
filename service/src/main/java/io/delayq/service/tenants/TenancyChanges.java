package io.delayq.service.tenants;

import io.delayq.core.JobRules;
import io.delayq.core.StoreException;
import io.delayq.core.StoreStatus;
import io.delayq.core.tenant.ApiToken;
import io.delayq.core.tenant.TenancySnapshot;
import io.delayq.core.tenant.Tenant;
import io.delayq.core.tenant.TenantRegistry;
import io.delayq.core.tenant.TokenKey;
import io.delayq.core.tenant.TopicPattern;
import jakarta.ws.rs.ClientErrorException;
import jakarta.ws.rs.NotFoundException;

import java.util.List;
import java.util.Optional;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

/**
 * Changes to the stored tenants and tokens, each checked against a snapshot of all of them and written only if
 * nothing changed meanwhile (the registry's compare-and-set), else checked again: two instances can never both accept
 * overlapping patterns, nor two tokens of one name. Tenants and tokens of the configuration are read-only (409).
 */
public final class TenancyChanges {
    private static final int ATTEMPTS = 20;

    private final TenantRegistry registry;
    private final TenantDirectory directory;
    private final TenantUse use;
    private final LongSupplier clock;

    public TenancyChanges(TenantRegistry registry, TenantDirectory directory, TenantUse use, LongSupplier clock) {
        this.registry = registry;
        this.directory = directory;
        this.use = use;
        this.clock = clock;
    }

    /** Whether the tenant was new. */
    public record Put(Tenant tenant, boolean created) {
    }

    /**
     * Creates or replaces a stored tenant. {@code change} gets the stored tenant of that name (empty when new) and
     * answers the tenant to write (a signing secret sent by id only keeps its stored value).
     */
    public Put putTenant(String name, java.util.function.Function<Optional<Tenant>, Tenant> change) {
        refuseConfigTenant(name);
        for (int i = 0; i < ATTEMPTS; i++) {
            TenancySnapshot snapshot = registry.read();
            Optional<Tenant> previous = snapshot.tenants().stream().filter(t -> t.name().equals(name)).findFirst();
            Tenant tenant = change.apply(previous);
            checkNoOverlap(tenant, snapshot);
            if (registry.putTenant(tenant, snapshot.version())) {
                directory.refresh();
                return new Put(tenant, previous.isEmpty());
            }
        }
        throw busy();
    }

    /**
     * Deletes a stored tenant that holds no pending jobs, then its tokens.
     *
     * @return the tenant deleted and how many tokens went with it
     */
    public int deleteTenant(String name) {
        refuseConfigTenant(name);
        for (int i = 0; i < ATTEMPTS; i++) {
            TenancySnapshot snapshot = registry.read();
            Tenant tenant = snapshot.tenants().stream().filter(t -> t.name().equals(name)).findFirst()
                    .orElseThrow(() -> new NotFoundException("There is no tenant " + JobRules.quote(name)));
            TenantUse.Use now = use.of(tenant);
            if (now.pendingJobs() > 0) {
                // schedules count as pending jobs: left behind, they would go on firing into topics nobody owns
                throw new ClientErrorException("Tenant " + JobRules.quote(name) + " still owns " + now.pendingJobs()
                        + " pending jobs in " + now.topics() + " topics" + (now.schedules() > 0 ? " (" + now.schedules()
                        + " of them schedules: delete those)" : "") + "; cancel them or let them run first", 409);
            }
            if (registry.deleteTenant(name, snapshot.version())) {
                int tokens = deleteTokens(t -> name.equals(t.tenant()));
                directory.refresh();
                return tokens;
            }
        }
        throw busy();
    }

    private int deleteTokens(Predicate<ApiToken> which) {
        int deleted = 0;
        for (int i = 0; i < ATTEMPTS * 10; i++) {
            TenancySnapshot snapshot = registry.read();
            Optional<ApiToken> next = snapshot.tokens().stream().filter(which).findFirst();
            if (next.isEmpty()) {
                return deleted;
            }
            if (registry.deleteToken(next.get().key(), snapshot.version())) {
                deleted++;
            }
        }
        throw busy();
    }

    /** Stores a new token; 409 when its name is taken within its tenant by an active token or a configured one. */
    public ApiToken createToken(ApiToken token) {
        boolean inConfig = directory.configTokens().stream().anyMatch(t -> t.key().equals(token.key()));
        if (inConfig) {
            throw conflict("A token named " + JobRules.quote(token.name()) + " of " + owner(token.tenant())
                    + " is declared in the configuration; choose another name");
        }
        for (int i = 0; i < ATTEMPTS; i++) {
            TenancySnapshot snapshot = registry.read();
            long now = clock.getAsLong();
            boolean taken = snapshot.tokens().stream()
                    .anyMatch(t -> t.key().equals(token.key()) && t.isActive(now));
            if (taken) {
                throw conflict("A token named " + JobRules.quote(token.name()) + " of " + owner(token.tenant())
                        + " exists already; token names are unique within a tenant (revoke it first to reuse the"
                        + " name)");
            }
            if (token.tenant() != null && directory.tenant(token.tenant()).isEmpty()
                    && snapshot.tenants().stream().noneMatch(t -> t.name().equals(token.tenant()))) {
                throw new NotFoundException("There is no tenant " + JobRules.quote(token.tenant()));
            }
            if (registry.putToken(token, snapshot.version())) {
                directory.refresh();
                return token;
            }
        }
        throw busy();
    }

    /** Revokes a stored token (kept, marked revoked, so lists show it); revoking a revoked one changes nothing. */
    public ApiToken revokeToken(TokenKey key) {
        if (directory.configTokens().stream().anyMatch(t -> t.key().equals(key))) {
            throw conflict("Token " + JobRules.quote(key.name()) + " is declared in the configuration and is"
                    + " read-only here; remove it from config.yml");
        }
        for (int i = 0; i < ATTEMPTS; i++) {
            TenancySnapshot snapshot = registry.read();
            ApiToken token = snapshot.tokens().stream().filter(t -> t.key().equals(key)).findFirst()
                    .orElseThrow(() -> new NotFoundException("There is no token " + JobRules.quote(key.name())
                            + " of " + owner(key.tenant())));
            if (token.revokedAtMs() != null) {
                return token;
            }
            ApiToken revoked = token.revoked(clock.getAsLong());
            if (registry.putToken(revoked, snapshot.version())) {
                directory.refresh();
                return revoked;
            }
        }
        throw busy();
    }

    private void refuseConfigTenant(String name) {
        Optional<Tenant> known = directory.tenant(name);
        if (known.isPresent() && known.get().fromConfig()) {
            throw conflict("Tenant " + JobRules.quote(name) + " is declared in the configuration and is read-only"
                    + " through the API; change it in config.yml");
        }
    }

    /** 409 naming the other tenant when one of {@code tenant}'s patterns overlaps its topics. */
    private void checkNoOverlap(Tenant tenant, TenancySnapshot snapshot) {
        List<Tenant> others = new java.util.ArrayList<>(directory.tenants().stream().filter(Tenant::fromConfig)
                .toList());
        others.addAll(snapshot.tenants());
        for (Tenant other : others) {
            if (other.name().equals(tenant.name())) {
                continue;
            }
            TopicPattern overlap = tenant.overlapWith(other);
            if (overlap != null) {
                throw conflict("Pattern " + JobRules.quote(overlap.text()) + " overlaps the topics of tenant "
                        + JobRules.quote(other.name()) + " (" + other.topics() + "): a topic belongs to at most one"
                        + " tenant");
            }
        }
    }

    static String owner(String tenant) {
        return tenant == null ? "the operators" : "tenant " + JobRules.quote(tenant);
    }

    private static ClientErrorException conflict(String message) {
        return new ClientErrorException(message, 409);
    }

    private static StoreException busy() {
        return new StoreException(StoreStatus.UNAVAILABLE, "the tenancy kept changing under this change; retry");
    }
}
