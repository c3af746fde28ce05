package io.delayq.postgres;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delayq.core.StoreException;
import io.delayq.core.StoreStatus;
import io.delayq.core.tenant.ApiToken;
import io.delayq.core.tenant.TenancyJson;
import io.delayq.core.tenant.TenancySnapshot;
import io.delayq.core.tenant.Tenant;
import io.delayq.core.tenant.TenantRegistry;
import io.delayq.core.tenant.TokenKey;
import io.delayq.postgres.TenancyStatements.Snapshot;
import org.jdbi.v3.core.Jdbi;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Core's {@link TenantRegistry} on PostgreSQL: {@code delayq_tenancy} (the version, one row), {@code delayq_tenants}
 * and {@code delayq_tokens} (V15). Each change is one statement ({@link TenancyStatements}) that updates the version
 * only while it still holds what the caller read, and writes in the same statement; a snapshot is one statement, so
 * one MVCC snapshot. Records are JSON ({@link TenancyJson}) in {@code jsonb} columns.
 */
final class PostgresTenantRegistry implements TenantRegistry {
    /** An operators' token's tenant in {@code delayq_tokens}: a tenant's name is never empty. */
    private static final String OPERATORS = "";

    private final TenancyStatements statements;
    private final ObjectMapper mapper;

    /** On the store's {@link Jdbi}, whose pool it shares. */
    PostgresTenantRegistry(Jdbi jdbi, ObjectMapper mapper) {
        jdbi.registerRowMapper(Snapshot.class, (rs, ctx) -> new Snapshot(rs.getLong("version"),
                rs.getString("tenants"), rs.getString("tokens"), rs.getString("uses")));
        this.statements = jdbi.onDemand(TenancyStatements.class);
        this.mapper = mapper;
    }

    @Override
    public long version() {
        return PostgresCalls.call("read the tenancy version", statements::version);
    }

    @Override
    public TenancySnapshot read() {
        Snapshot s = PostgresCalls.call("read the tenants and tokens", statements::read);
        List<Tenant> tenants = new ArrayList<>();
        for (JsonNode t : array(s.tenants())) {
            tenants.add(TenancyJson.readTenant(t.toString(), "tenant '" + t.path("name").asText() + "' in delayq_tenants"));
        }
        List<ApiToken> tokens = new ArrayList<>();
        for (JsonNode t : array(s.tokens())) {
            tokens.add(TenancyJson.readToken(t.toString(), "token '" + t.path("tenant").asText("") + "/"
                    + t.path("name").asText() + "' in delayq_tokens"));
        }
        Map<TokenKey, Long> used = new HashMap<>();
        for (JsonNode u : array(s.uses())) {
            String tenant = u.get(0).asText();
            used.put(new TokenKey(tenant.equals(OPERATORS) ? null : tenant, u.get(1).asText()), u.get(2).asLong());
        }
        return new TenancySnapshot(s.version(), tenants, tokens, used);
    }

    @Override
    public boolean putTenant(Tenant tenant, long expectedVersion) {
        Objects.requireNonNull(tenant, "tenant");
        String json = TenancyJson.write(tenant);
        return PostgresCalls.call("put tenant " + tenant.name(),
                () -> statements.putTenant(expectedVersion, tenant.name(), json)).isPresent();
    }

    @Override
    public boolean deleteTenant(String name, long expectedVersion) {
        Objects.requireNonNull(name, "name");
        return PostgresCalls.call("delete tenant " + name, () -> statements.deleteTenant(expectedVersion, name));
    }

    @Override
    public boolean putToken(ApiToken token, long expectedVersion) {
        Objects.requireNonNull(token, "token");
        String json = TenancyJson.write(token);
        return PostgresCalls.call("put token " + token.key(),
                () -> statements.putToken(expectedVersion, tenantColumn(token.key()), token.name(), json)).isPresent();
    }

    @Override
    public boolean deleteToken(TokenKey key, long expectedVersion) {
        Objects.requireNonNull(key, "key");
        return PostgresCalls.call("delete token " + key,
                () -> statements.deleteToken(expectedVersion, tenantColumn(key), key.name()));
    }

    @Override
    public void recordUse(Map<TokenKey, Long> lastUsedAtMs) {
        if (lastUsedAtMs.isEmpty()) {
            return;
        }
        int n = lastUsedAtMs.size();
        String[] tenants = new String[n];
        String[] names = new String[n];
        Long[] ats = new Long[n];
        int i = 0;
        for (Map.Entry<TokenKey, Long> e : lastUsedAtMs.entrySet()) {
            tenants[i] = tenantColumn(e.getKey());
            names[i] = e.getKey().name();
            ats[i++] = e.getValue();
        }
        PostgresCalls.call("record the tokens' last use", () -> {
            statements.recordUse(tenants, names, ats);
            return null;
        });
    }

    private static String tenantColumn(TokenKey key) {
        return key.tenant() == null ? OPERATORS : key.tenant();
    }

    /** A JSON array the read statement built (json_agg): the database wrote it, so it parses. */
    private JsonNode array(String json) {
        try {
            return mapper.readTree(json);
        } catch (JsonProcessingException e) {
            throw new StoreException(StoreStatus.UNAVAILABLE, "the tenancy read returned JSON this version cannot"
                    + " parse (" + e.getClass().getSimpleName() + ")");
        }
    }
}
