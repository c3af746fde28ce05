package io.delayq.redis;

import io.delayq.core.tenant.ApiToken;
import io.delayq.core.tenant.TenancyJson;
import io.delayq.core.tenant.TenancySnapshot;
import io.delayq.core.tenant.Tenant;
import io.delayq.core.tenant.TenantRegistry;
import io.delayq.core.tenant.TokenKey;
import io.delayq.redis.Scripts.Op;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiConsumer;

/**
 * Core's {@link TenantRegistry} on four keys under the hash tag {@code {tenancy}} ({@link RedisKeys#TENANTS},
 * {@link RedisKeys#TOKENS}, {@link RedisKeys#TENANCY_VERSION}, {@link RedisKeys#TOKENS_USED}), so on one cluster node:
 * each change is one script that compares the version and writes ({@code tenant_put.lua}, …), and a snapshot is one
 * script that reads it all ({@code tenancy_read.lua}). Changes are acknowledged writes ({@code minReplicas}: a tenant
 * or a revocation a caller was told about must survive a failover); last uses are not (a lost one is reported again
 * within a minute). Records are JSON ({@link TenancyJson}); a token's field is {@code <tenant>/<name>}, or
 * {@code /<name>} for an operators' token ({@code /} is in no name's alphabet).
 */
final class RedisTenantRegistry implements TenantRegistry {
    private static final List<String> TENANT_KEYS = List.of(RedisKeys.TENANCY_VERSION, RedisKeys.TENANTS);
    private static final List<String> TOKEN_KEYS = List.of(RedisKeys.TENANCY_VERSION, RedisKeys.TOKENS);
    private static final List<String> TOKEN_DELETE_KEYS = List.of(RedisKeys.TENANCY_VERSION, RedisKeys.TOKENS,
            RedisKeys.TOKENS_USED);
    private static final List<String> USE_KEYS = List.of(RedisKeys.TOKENS, RedisKeys.TOKENS_USED);
    private static final List<String> READ_KEYS = List.of(RedisKeys.TENANCY_VERSION, RedisKeys.TENANTS,
            RedisKeys.TOKENS, RedisKeys.TOKENS_USED);

    private final RedisCalls calls;
    private final ReplicatedWrites writes;

    RedisTenantRegistry(RedisCalls calls, ReplicatedWrites writes) {
        this.calls = calls;
        this.writes = writes;
    }

    @Override
    public long version() {
        String version = calls.call("read the tenancy version", () -> calls.client().get(RedisKeys.TENANCY_VERSION));
        return version == null ? 0 : Long.parseLong(version);
    }

    @Override
    public TenancySnapshot read() {
        List<?> answer = (List<?>) calls.call("read the tenants and tokens",
                () -> calls.scripts().eval(Op.TENANCY_READ, READ_KEYS, List.of()));
        List<Tenant> tenants = new ArrayList<>();
        pairs(answer.get(1), (name, json) -> tenants.add(TenancyJson.readTenant(json,
                "tenant '" + name + "' in " + RedisKeys.TENANTS)));
        List<ApiToken> tokens = new ArrayList<>();
        pairs(answer.get(2), (field, json) -> tokens.add(TenancyJson.readToken(json,
                "token '" + field + "' in " + RedisKeys.TOKENS)));
        Map<TokenKey, Long> used = new HashMap<>();
        pairs(answer.get(3), (field, ms) -> used.put(key(field), Long.parseLong(ms)));
        return new TenancySnapshot(Long.parseLong((String) answer.get(0)), tenants, tokens, used);
    }

    @Override
    public boolean putTenant(Tenant tenant, long expectedVersion) {
        Objects.requireNonNull(tenant, "tenant");
        return change("put tenant " + tenant.name(), Op.TENANT_PUT, TENANT_KEYS, expectedVersion, tenant.name(),
                TenancyJson.write(tenant));
    }

    @Override
    public boolean deleteTenant(String name, long expectedVersion) {
        Objects.requireNonNull(name, "name");
        return change("delete tenant " + name, Op.TENANT_DELETE, TENANT_KEYS, expectedVersion, name);
    }

    @Override
    public boolean putToken(ApiToken token, long expectedVersion) {
        Objects.requireNonNull(token, "token");
        return change("put token " + token.key(), Op.TOKEN_PUT, TOKEN_KEYS, expectedVersion, field(token.key()),
                TenancyJson.write(token));
    }

    @Override
    public boolean deleteToken(TokenKey key, long expectedVersion) {
        Objects.requireNonNull(key, "key");
        return change("delete token " + key, Op.TOKEN_DELETE, TOKEN_DELETE_KEYS, expectedVersion, field(key));
    }

    @Override
    public void recordUse(Map<TokenKey, Long> lastUsedAtMs) {
        if (lastUsedAtMs.isEmpty()) {
            return;
        }
        List<String> args = new ArrayList<>(2 * lastUsedAtMs.size());
        lastUsedAtMs.forEach((key, ms) -> {
            args.add(field(key));
            args.add(Long.toString(ms));
        });
        calls.call("record the tokens' last use", () -> calls.scripts().eval(Op.TOKEN_USE, USE_KEYS, args));
    }

    /** A compare-and-set script: its arguments after the version, and whether the version still held. */
    private boolean change(String operation, Op op, List<String> keys, long expectedVersion, String... args) {
        List<String> all = new ArrayList<>(1 + args.length);
        all.add(Long.toString(expectedVersion));
        all.addAll(List.of(args));
        return (Long) writes.evalOneAcknowledged(operation, op, keys, all) == 1;
    }

    /** A token's field in {@link RedisKeys#TOKENS} and {@link RedisKeys#TOKENS_USED}. */
    static String field(TokenKey key) {
        return (key.tenant() == null ? "" : key.tenant()) + "/" + key.name();
    }

    static TokenKey key(String field) {
        int slash = field.indexOf('/');
        return new TokenKey(slash <= 0 ? null : field.substring(0, slash), field.substring(slash + 1));
    }

    /** The field / value pairs of an HGETALL answered by a script (a flat list). */
    private static void pairs(Object flat, BiConsumer<String, String> each) {
        List<?> list = (List<?>) flat;
        for (int i = 0; i + 1 < list.size(); i += 2) {
            each.accept((String) list.get(i), (String) list.get(i + 1));
        }
    }
}
