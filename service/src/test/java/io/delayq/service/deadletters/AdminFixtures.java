package io.delayq.service.deadletters;

import io.delayq.service.auth.TokenFactory;

import java.util.List;
import java.util.Set;
import java.util.UUID;

/** Tokens for the admin tests (jobs and topics come from core's {@code io.delayq.core.testing.StoreFixtures}). */
final class AdminFixtures {
    static final String ADMIN_TOKEN = "admin-" + UUID.randomUUID();
    static final String PRODUCER_TOKEN = "producer-" + UUID.randomUUID();

    private AdminFixtures() {
    }

    static List<TokenFactory> tokens() {
        return List.of(token("ops", ADMIN_TOKEN, Set.of("admin")), token("app", PRODUCER_TOKEN, Set.of("producer")));
    }

    private static TokenFactory token(String name, String token, Set<String> roles) {
        var t = new TokenFactory();
        t.setName(name);
        t.setToken(token);
        t.setRoles(roles);
        return t;
    }
}
