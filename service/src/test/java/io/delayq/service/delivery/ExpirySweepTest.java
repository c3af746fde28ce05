package io.delayq.service.delivery;

import com.codahale.metrics.MetricRegistry;
import io.delayq.core.Delivery;
import io.delayq.core.DeadCause;
import io.delayq.core.JobRef;
import io.delayq.core.JobState;
import io.delayq.core.NewJob;
import io.delayq.core.TopicSettings;
import io.delayq.core.testing.Await;
import io.delayq.redis.RedisJobStore;
import io.delayq.redis.testing.TestRedis;
import io.delayq.service.history.TopicActivity;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The expiry sweep against a real Redis, over more topics than one page of {@code JobStore.times}: a pull job past its
 * topic's {@code expiresAfter} ends at the first round after its expiry (it has not waited a whole interval), a job
 * whose own {@code expiresAt} passed ends once its lane has waited a round, a job not yet expired is left alone.
 */
class ExpirySweepTest {
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
    void oneRoundOverManyTopicsEndsWhatExpiredAndLeavesTheRest() {
        String run = "sweep-" + UUID.randomUUID() + "-";
        List<NewJob> filler = new ArrayList<>();
        for (int i = 0; i < SafetySweep.PAGE + 100; i++) {
            filler.add(NewJob.delayed(run + "filler-" + i, "f", "{}", 600_000, 3));
        }
        store.enqueue(filler);
        String byTopic = run + "by-topic";
        store.putSettings(byTopic, expiresAfter(300L));
        store.enqueue(NewJob.delayed(byTopic, "old", "{}", 0, 3));
        String fresh = run + "fresh";
        store.putSettings(fresh, expiresAfter(600_000L));
        store.enqueue(NewJob.delayed(fresh, "young", "{}", 0, 3));
        String byJob = run + "by-job";
        store.enqueue(NewJob.delayed(byJob, "own", "{}", 0, 3).withExpiresAt(store.now() + 200));

        MetricRegistry registry = new MetricRegistry();
        DeliveryMetrics metrics = new DeliveryMetrics(registry, () -> 0, TopicActivity.NONE);
        ExpirySweep sweep = new ExpirySweep(store, metrics, new StoreErrorLog(), 500); // rounds of 5 s
        Await.until("the topic's expiresAfter passed", 5_000, () -> store.now() > store.nextDueAt(byTopic,
                Delivery.PULL) + 300);
        sweep.round();

        assertThat(state(byTopic, "old")).as("expired by its topic's expiresAfter, swept at once")
                .isEqualTo(JobState.DEAD);
        assertThat(store.find(new JobRef(byTopic, "old")).orElseThrow().deadCause()).isEqualTo(DeadCause.EXPIRED);
        assertThat(state(fresh, "young")).as("not expired").isEqualTo(JobState.SCHEDULED);
        assertThat(state(byJob, "own")).as("its own expiresAt passed, but its lane has not waited a round yet")
                .isEqualTo(JobState.SCHEDULED);
        assertThat(registry.meter(DeliveryMetrics.EXPIRED).getCount()).isEqualTo(1);
        assertThat(state(run + "filler-0", "f")).isEqualTo(JobState.SCHEDULED);
    }

    private static TopicSettings expiresAfter(long ms) {
        return new TopicSettings(null, null, null, null, null, null, null, null, null, null, null, null, ms, null);
    }

    private static JobState state(String topic, String id) {
        return store.find(new JobRef(topic, id)).orElseThrow().state();
    }
}
