package io.delayq.redis;

import io.delayq.core.Delivery;
import io.delayq.core.Failure;
import io.delayq.core.Job;
import io.delayq.core.JobRef;
import io.delayq.core.JobState;
import io.delayq.core.Lease;
import io.delayq.core.LeaseRef;
import io.delayq.core.LeaseToken;
import io.delayq.core.NewJob;
import io.delayq.core.StoreStatus;
import io.delayq.core.testing.Await;
import io.delayq.redis.RedisKeys.Partition;
import io.delayq.redis.testing.TestRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Leases in flight across the upgrade to 128-bit lease tokens: jobs leased by the previous version's reserve script
 * ({@code lua/before-128-bit-tokens/reserve.lua}, a copy of it), whose records hold a decimal token of one random base
 * plus an index, are acked, nacked and extended by this version with the token as their holder presents it (the
 * decimal text the lease answer or the callback header gave), and expire normally; their tokens are still refused for
 * any other job, and the next lease of the job has a 128-bit token.
 */
class RedisLegacyLeaseTest {
    private static final String PAYLOAD = "{\"order\":7}";
    /** A token base as the previous version drew it: 10^13 + a random number below 8.9 × 10^14. */
    private static final String BASE = "522571197460746";

    private final String uri = TestRedis.sharedUri();
    private final String topic = "t-" + UUID.randomUUID();
    private final Partition p = Partition.of(topic, 0);
    private final RedisFixtures raw = new RedisFixtures(uri);
    private final RedisJobStore store = RedisJobStore.connect(uri);

    @AfterEach
    void close() {
        store.close();
        raw.close();
    }

    @Test
    void leasesMadeByThePreviousVersionAreAckedNackedAndExtendedWithTheTokensTheirHoldersWereGiven() throws Exception {
        for (String id : List.of("acked", "nacked", "extended")) {
            store.enqueue(NewJob.delayed(topic, id, PAYLOAD, 0, 3));
        }
        Map<String, String> tokens = leaseAsThePreviousVersionDid(3, 60_000);
        assertThat(tokens).containsOnlyKeys("acked", "nacked", "extended");
        assertThat(tokens.values()).allMatch(t -> t.matches(BASE + "000[1-3]"));
        assertThat(raw.head(p, "acked").extra().get("t").asText()).isEqualTo(tokens.get("acked"));

        LeaseRef acked = legacy("acked", tokens.get("acked"));
        LeaseRef nacked = legacy("nacked", tokens.get("nacked"));
        LeaseRef extended = legacy("extended", tokens.get("extended"));
        assertThat(store.ack(List.of(legacy("acked", tokens.get("nacked")))))
                .as("a sibling's token, one index away, is not this job's").containsExactly(StoreStatus.STALE_LEASE);

        assertThat(store.ack(List.of(acked))).containsExactly(StoreStatus.OK);
        assertThat(find("acked").state()).isEqualTo(JobState.SUCCEEDED);

        assertThat(store.nack(nacked, Failure.retryAfter(0, "receiver said no", 500))).isEqualTo(StoreStatus.OK);
        Job retried = find("nacked");
        assertThat(retried.state()).isEqualTo(JobState.SCHEDULED);
        assertThat(retried.history()).singleElement()
                .satisfies(a -> assertThat(a.error()).isEqualTo("receiver said no"));

        long deadline = store.extend(extended, 120_000);
        assertThat(deadline).isGreaterThan(store.now() + 100_000);
        assertThat(raw.entries(p.leased())).containsEntry("extended", deadline);
        assertThat(store.ack(List.of(extended))).containsExactly(StoreStatus.OK);

        List<Lease> leased = new ArrayList<>();
        Await.until("the nacked job leased again", Duration.ofSeconds(2),
                () -> leased.addAll(store.reserve(topic, Delivery.PULL, 1, 60_000).leases()));
        Lease next = leased.get(0);
        assertThat(next.job().id()).isEqualTo("nacked");
        assertThat(next.token().text()).as("the next lease has a 128-bit token").hasSize(LeaseToken.LENGTH);
        assertThat(store.ack(List.of(nacked))).as("the old lease's token is spent")
                .containsExactly(StoreStatus.STALE_LEASE);
        assertThat(store.ack(List.of(LeaseRef.of(next)))).containsExactly(StoreStatus.OK);
    }

    @Test
    void aLeaseMadeByThePreviousVersionExpiresNormally() throws Exception {
        store.enqueue(NewJob.delayed(topic, "expiring", PAYLOAD, 0, 3));
        Map<String, String> tokens = leaseAsThePreviousVersionDid(1, 200);
        long deadline = raw.entries(p.leased()).get("expiring");
        assertThat(store.nextLeaseDeadline(topic)).isEqualTo(deadline);

        Await.until("past the lease's deadline", Duration.ofSeconds(2), () -> store.now() > deadline);
        assertThat(store.expireLeases(topic, 10)).isEqualTo(1);

        Job back = find("expiring");
        assertThat(back.state()).isEqualTo(JobState.SCHEDULED);
        assertThat(back.attempts()).isEqualTo(1);
        assertThat(back.history()).singleElement().satisfies(a -> assertThat(a.error()).isNotBlank());
        assertThat(raw.head(p, "expiring").extra().has("t")).as("the token is spent").isFalse();
        assertThat(store.ack(List.of(legacy("expiring", tokens.get("expiring")))))
                .containsExactly(StoreStatus.STALE_LEASE);
        Lease again = store.reserve(topic, Delivery.PULL, 1, 60_000).leases().get(0);
        assertThat(again.attempt()).isEqualTo(2);
        assertThat(store.ack(List.of(LeaseRef.of(again)))).containsExactly(StoreStatus.OK);
    }

    /**
     * Leases up to {@code max} due jobs with the previous version's script and arguments; returns id → the token its
     * lease answer gave (what that version's service handed to the consumer, as decimal text).
     */
    private Map<String, String> leaseAsThePreviousVersionDid(int max, long leaseMs) {
        String script = Scripts.source("before-128-bit-tokens/reserve.lua");
        List<?> answer = (List<?>) raw.redis().eval(script,
                List.of(p.jobs(), p.schedPull(), p.leased(), p.finished(), p.quarantine()),
                List.of(Integer.toString(max), Long.toString(leaseMs), BASE, Long.toString(86_400_000)));
        assertThat(answer.get(2)).as("nothing quarantined").isEqualTo(0L);
        Map<String, String> tokens = new LinkedHashMap<>();
        for (int a = 3; a + 3 < answer.size(); a += 4) {
            tokens.put((String) answer.get(a), (String) answer.get(a + 1));
        }
        return tokens;
    }

    /** The lease as this version's service reads it from a holder of the previous version's token. */
    private LeaseRef legacy(String id, String token) {
        LeaseToken parsed = LeaseToken.parse(token);
        assertThat(parsed.isLegacy()).isTrue();
        return new LeaseRef(new JobRef(topic, id), parsed);
    }

    private Job find(String id) {
        return store.find(new JobRef(topic, id)).orElseThrow();
    }
}
