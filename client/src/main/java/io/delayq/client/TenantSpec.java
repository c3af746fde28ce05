package io.delayq.client;

import java.util.List;

/**
 * A tenant to create or replace ({@link DelayqClient#putTenant}).
 *
 * @param topics         patterns: a topic name, or a name followed by {@code .*} ({@code billing.*})
 * @param quotas         {@code null}: no limits
 * @param weight         its share of delivery capacity, 1 to 1000; {@code null}: 1
 * @param signingSecrets {@code null}: keep the stored ones; a secret with {@code secret} {@code null} keeps the
 *                       stored value of its id (a rotation: the old one by id, the new one with its value)
 */
public record TenantSpec(List<String> topics, TenantQuotas quotas, Integer weight, List<Secret> signingSecrets) {

    /** One signing secret; the service never shows the value. */
    public record Secret(String id, String secret) {
        /** Keeps the stored secret of this id. */
        public static Secret keep(String id) {
            return new Secret(id, null);
        }

        @Override
        public String toString() {
            return "Secret[" + id + "]";
        }
    }

    public static TenantSpec of(String... topics) {
        return new TenantSpec(List.of(topics), null, null, null);
    }

    public TenantSpec withQuotas(TenantQuotas quotas) {
        return new TenantSpec(topics, quotas, weight, signingSecrets);
    }

    public TenantSpec withWeight(int weight) {
        return new TenantSpec(topics, quotas, weight, signingSecrets);
    }

    public TenantSpec withSigningSecrets(Secret... secrets) {
        return new TenantSpec(topics, quotas, weight, List.of(secrets));
    }
}
