package io.delayq.service.consumer;

import com.codahale.metrics.MetricRegistry;
import io.delayq.core.Job;
import io.delayq.core.JobRef;
import io.delayq.core.JobState;
import io.delayq.core.Lease;
import io.delayq.core.NewJob;
import io.delayq.core.PolicyDefaults;
import io.delayq.redis.RedisJobStore;
import io.delayq.redis.testing.TestRedis;
import io.delayq.service.ratelimit.RateLimitMetrics;
import io.delayq.service.ratelimit.TopicPermits;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/** Leases taken for a consumer that went away before it got them go back without costing an attempt. */
class LeaseIssuerTest {
    private static RedisJobStore store;

    @BeforeAll
    static void connect() {
        store = RedisJobStore.connect(TestRedis.sharedUri());
    }

    @AfterAll
    static void disconnect() {
        store.close();
    }

    @Test
    void aLeaseNobodyReceivedIsGivenBackDueNowWithItsAttemptUnused() {
        String topic = "t-" + UUID.randomUUID();
        LeaseIssuer issuer = new LeaseIssuer(store, PolicyDefaults.defaults(), LeaseWatcher.NONE,
                new TopicPermits(store::rateLimiters, new RateLimitMetrics(new MetricRegistry())),
                PullActivity.NONE);
        store.enqueue(NewJob.delayed(topic, "only-one-attempt", "{}", 0, 1));
        List<Lease> taken = issuer.issue(topic, 1, 60_000L).leases();
        assertThat(taken).hasSize(1);

        issuer.giveBack(topic, taken);

        Job back = store.find(new JobRef(topic, "only-one-attempt")).orElseThrow();
        assertThat(back.state()).isEqualTo(JobState.SCHEDULED);
        assertThat(back.attempts()).as("attempts used").isZero();
        List<Lease> again = issuer.issue(topic, 1, 60_000L).leases();
        assertThat(again).as("due again at once").hasSize(1);
        assertThat(again.get(0).attempt()).as("the same attempt, not the next").isEqualTo(1);
    }
}
