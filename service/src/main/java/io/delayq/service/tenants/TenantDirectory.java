package io.delayq.service.tenants;

import io.delayq.core.tenant.ApiToken;
import io.delayq.core.tenant.TenancySnapshot;
import io.delayq.core.tenant.Tenant;
import io.delayq.core.tenant.TenantRegistry;
import io.delayq.core.tenant.TokenKey;
import io.delayq.service.auth.DelayqPrincipal;
import io.delayq.service.auth.StoredTokens;
import io.dropwizard.lifecycle.Managed;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Every tenant and API token this instance knows: those of the configuration, and those the store's
 * {@link TenantRegistry} keeps, read again whenever its version moves. The version is polled every
 * {@code refreshMs} (1 s in the service), so a tenant or token made, changed or revoked on any instance takes effect on
 * every other within that, plus one read — well within the 5 s the API promises. While the store cannot be read, the
 * last view stays in force (and the failure is logged once).
 *
 * <p>Answers who owns a topic ({@link #tenantOf}, delivery's {@code TenantLookup} and the quotas) and which stored
 * token a request presents ({@link #find}); records when tokens were used, at most once a minute per token
 * (the store's value, written by any instance, counts), in the store.
 */
public final class TenantDirectory implements Managed, StoredTokens {
    private static final Logger LOG = LoggerFactory.getLogger(TenantDirectory.class);
    /** A token's last use is written at most this often. */
    static final long USE_WRITE_INTERVAL_MS = 60_000;

    private final TenantRegistry registry;
    private final List<Tenant> configTenants;
    private final List<ConfigToken> configTokens;
    private final LongSupplier clock;
    private final long refreshMs;
    private final Map<TokenKey, Long> usesToWrite = new ConcurrentHashMap<>();
    private final Map<TokenKey, Long> usesWritten = new ConcurrentHashMap<>();
    private volatile View view;
    private volatile boolean failing;
    private ScheduledExecutorService timer;

    /** What was read at one version: tenants (configured first) and stored tokens. */
    record View(TenancySnapshot snapshot, List<Tenant> tenants, Map<String, Tenant> byName) {
    }

    /**
     * @param configTenants the configuration's tenants (checked against each other)
     * @param configTokens  the configuration's tokens, as the API lists them
     * @param refreshMs     how often the store's version is checked
     */
    public TenantDirectory(TenantRegistry registry, List<Tenant> configTenants, List<ConfigToken> configTokens,
                           LongSupplier clock, long refreshMs) {
        this.registry = registry;
        this.configTenants = List.copyOf(configTenants);
        this.configTokens = List.copyOf(configTokens);
        this.clock = clock;
        this.refreshMs = refreshMs;
        this.view = viewOf(TenancySnapshot.empty());
    }

    @Override
    public void start() {
        try {
            refresh();
        } catch (RuntimeException e) {
            LOG.warn("Cannot read the stored tenants and tokens yet; retrying every {} ms: {}", refreshMs, e.toString());
        }
        timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "tenant-directory");
            t.setDaemon(true);
            return t;
        });
        timer.scheduleWithFixedDelay(this::tick, refreshMs, refreshMs, TimeUnit.MILLISECONDS);
    }

    @Override
    public void stop() {
        if (timer != null) {
            timer.shutdownNow();
        }
        writeUses();
    }

    private void tick() {
        try {
            if (registry.version() != view.snapshot().version()) {
                refresh();
            }
            writeUses();
            if (failing) {
                LOG.info("The stored tenants and tokens can be read again");
                failing = false;
            }
        } catch (RuntimeException e) {
            if (!failing) {
                LOG.warn("Cannot read the stored tenants and tokens; keeping the last ones read: {}", e.toString());
                failing = true;
            }
        }
    }

    /** Reads the store's tenants and tokens now (after a change through this instance, so it is seen at once). */
    public void refresh() {
        view = viewOf(registry.read());
    }

    private View viewOf(TenancySnapshot snapshot) {
        List<Tenant> all = new ArrayList<>(configTenants);
        Map<String, Tenant> byName = new HashMap<>();
        configTenants.forEach(t -> byName.put(t.name(), t));
        for (Tenant stored : snapshot.tenants()) {
            if (!byName.containsKey(stored.name())) { // a configured tenant of the same name wins
                all.add(stored);
                byName.put(stored.name(), stored);
            }
        }
        return new View(snapshot, List.copyOf(all), Map.copyOf(byName));
    }

    /** The tenant owning {@code topic}, or {@code null}: the operators'. */
    public Tenant tenantOf(String topic) {
        for (Tenant tenant : view.tenants()) {
            if (tenant.owns(topic)) {
                return tenant;
            }
        }
        return null;
    }

    public Optional<Tenant> tenant(String name) {
        return Optional.ofNullable(view.byName().get(name));
    }

    /** Every tenant: the configuration's, then the stored ones. */
    public List<Tenant> tenants() {
        return view.tenants();
    }

    /** The configuration's tokens, as listed (read-only). */
    public List<ConfigToken> configTokens() {
        return configTokens;
    }

    /** The stored tokens, revoked ones included. */
    public List<ApiToken> storedTokens() {
        return view.snapshot().tokens();
    }

    /** When the token was last used, as far as the store or this instance knows, or {@code null}. */
    public Long lastUsedAtMs(TokenKey key) {
        Long stored = view.snapshot().lastUsedAtMs().get(key);
        Long local = usesWritten.get(key);
        if (stored == null) {
            return local;
        }
        return local == null ? stored : Math.max(stored, local);
    }

    /**
     * Every active stored token is compared with {@link MessageDigest#isEqual}, so the time taken says nothing of which
     * matched; one whose tenant no longer exists is refused.
     */
    @Override
    public Optional<DelayqPrincipal> find(byte[] sha256) {
        long now = clock.getAsLong();
        View current = view;
        ApiToken found = null;
        for (ApiToken token : current.snapshot().tokens()) {
            byte[] stored = HexFormat.of().parseHex(token.sha256());
            if (MessageDigest.isEqual(stored, sha256) && found == null && token.isActive(now)) {
                found = token;
            }
        }
        if (found == null || (found.tenant() != null && !current.byName().containsKey(found.tenant()))) {
            return Optional.empty();
        }
        used(found.key(), now);
        return Optional.of(new DelayqPrincipal(found.key().toString(), found.roles(), found.tenant()));
    }

    private void used(TokenKey key, long now) {
        Long last = lastUsedAtMs(key);
        if (last == null || now - last >= USE_WRITE_INTERVAL_MS) {
            usesWritten.put(key, now);
            usesToWrite.put(key, now);
        }
    }

    private void writeUses() {
        if (usesToWrite.isEmpty()) {
            return;
        }
        Map<TokenKey, Long> batch = new HashMap<>(usesToWrite);
        try {
            registry.recordUse(batch);
            batch.forEach(usesToWrite::remove);
        } catch (RuntimeException e) {
            LOG.debug("Token uses not written yet: {}", e.toString());
        }
    }
}
