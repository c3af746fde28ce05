package io.delayq.service.admin;

import io.delayq.core.Delivery;
import io.delayq.core.Failure;
import io.delayq.core.JobRef;
import io.delayq.core.JobStore;
import io.delayq.core.Lease;
import io.delayq.core.LeaseRef;
import io.delayq.core.NewJob;
import io.delayq.core.StoreStatus;
import io.delayq.service.auth.TokenFactory;

import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/** Tokens and dead jobs for the admin tests. */
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

    static String newTopic() {
        return "t-" + UUID.randomUUID();
    }

    /** A pull job whose every attempt fails; it is dead after {@code attempts}. */
    static JobRef killJob(JobStore store, String topic, String id, int attempts) {
        assertThat(store.enqueue(NewJob.delayed(topic, id, "{\"id\":\"" + id + "\"}", 0, attempts)).status())
                .isEqualTo(StoreStatus.OK);
        for (int attempt = 1; attempt <= attempts; attempt++) {
            Lease lease = reserveOne(store, topic);
            Failure failure = attempt < attempts
                    ? Failure.retryAfter(0, "HTTP 500 on attempt " + attempt, 500)
                    : Failure.dead("HTTP 500 on attempt " + attempt, 500);
            assertThat(store.nack(LeaseRef.of(lease), failure)).isEqualTo(StoreStatus.OK);
        }
        return new JobRef(topic, id);
    }

    static Lease reserveOne(JobStore store, String topic) {
        long deadline = System.currentTimeMillis() + 5_000;
        while (System.currentTimeMillis() < deadline) {
            List<Lease> leases = store.reserve(topic, Delivery.PULL, 1, 10_000).leases();
            if (!leases.isEmpty()) {
                return leases.get(0);
            }
            sleep(10);
        }
        throw new AssertionError("no job of " + topic + " became due within 5 s");
    }

    static void await(String what, BooleanSupplier condition) {
        long deadline = System.currentTimeMillis() + 20_000;
        while (!condition.getAsBoolean()) {
            if (System.currentTimeMillis() > deadline) {
                throw new AssertionError("timed out waiting until " + what);
            }
            sleep(25);
        }
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
