package io.delayq.service.delivery;

import com.codahale.metrics.MetricRegistry;
import io.delayq.core.Callback;
import io.delayq.core.Delivery;
import io.delayq.core.JobRef;
import io.delayq.core.JobState;
import io.delayq.core.JobStore;
import io.delayq.core.LeaseInFlight;
import io.delayq.core.NewJob;
import io.delayq.core.TopicSettings;
import io.delayq.core.testing.Await;
import io.delayq.redis.RedisJobStore;
import io.delayq.redis.testing.TestRedis;
import io.delayq.testing.CallbackReceiver;
import io.delayq.testing.CallbackReceiver.Reply;
import io.dropwizard.util.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The lease extension after a 202 does not queue behind failed attempts' nacks (issue 26, finding 10). A race under
 * load cannot be forced, so this checks the structure: the store writers are kept busy by slowed nacks (the real
 * Redis store, each nack held 1.5 s by a forwarding proxy), and a 202 whose 1 s lease would lapse behind them must
 * still get its extension in time: the receiver is not called again, and the lease ends at the asyncAckTimeout.
 */
class AsyncExtensionTest {
    private static final long NACK_DELAY_MS = 1_500;

    private RedisJobStore redis;
    private CallbackReceiver receiver;
    private DeliveryEngine engine;
    private final AtomicInteger slowedNacks = new AtomicInteger();

    @BeforeEach
    void setUp() {
        redis = RedisJobStore.connect(TestRedis.sharedUri());
        receiver = new CallbackReceiver();
        receiver.answer(r -> r.path().startsWith("/fail") ? Reply.status(500) : Reply.status(202));
    }

    @AfterEach
    void tearDown() {
        if (engine != null) {
            engine.stop();
        }
        receiver.close();
        redis.close();
    }

    @Test
    void theExtensionAfterA202IsWrittenBeforeTheLeaseLapsesWhileNacksQueue() {
        DeliveryFactory config = DeliveryEngineTest.config();
        config.setAsyncAckTimeout(Duration.seconds(60));
        engine = config.build(slowNacks(redis), new MetricRegistry());
        engine.start();
        String failing = "t-" + UUID.randomUUID();
        String async = "t-" + UUID.randomUUID();
        redis.putSettings(async, new TopicSettings(null, null, null, null, null, null, null, null, null, true, null));
        for (int i = 0; i < 12; i++) { // 12 nacks of 1.5 s on 4 store writers: 4.5 s of queue
            redis.enqueue(new NewJob(failing, "f" + i, "{}", 0L, null, 5, null, Callback.of(receiver.url("/fail")),
                    null, false, Delivery.PUSH));
        }
        Await.until("the store writers are busy", 5_000, () -> slowedNacks.get() >= 4);
        redis.enqueue(new NewJob(async, "a", "{}", 0L, null, 5, null, Callback.of(receiver.url("/async")), 1_000L,
                false, Delivery.PUSH));

        Await.until("the 202", 5_000, () -> receiver.forJob("a").size() == 1);
        Await.sleep(3_000); // three times the 1 s lease
        assertThat(receiver.forJob("a")).as("not delivered again while the receiver works").hasSize(1);
        JobRef ref = new JobRef(async, "a");
        assertThat(redis.find(ref).orElseThrow().state()).isEqualTo(JobState.LEASED);
        List<LeaseInFlight> leases = redis.leasesInFlight(async, 10);
        assertThat(leases).hasSize(1);
        assertThat(leases.get(0).deadlineMs() - redis.now()).as("ms left of the lease")
                .isGreaterThan(50_000);
    }

    /** The store with every nack held {@value #NACK_DELAY_MS} ms first: store writers that fall behind. */
    private JobStore slowNacks(JobStore store) {
        return (JobStore) Proxy.newProxyInstance(JobStore.class.getClassLoader(), new Class<?>[]{JobStore.class},
                (proxy, method, args) -> {
                    if (method.getName().startsWith("nack")) { // nack, nackOutcome
                        slowedNacks.incrementAndGet();
                        Thread.sleep(NACK_DELAY_MS);
                    }
                    try {
                        return method.invoke(store, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

}
