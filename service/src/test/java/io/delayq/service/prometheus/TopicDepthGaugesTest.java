package io.delayq.service.prometheus;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import io.delayq.core.JobStore;
import io.delayq.core.NewJob;
import io.delayq.redis.RedisJobStore;
import io.delayq.redis.testing.TestRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The per-topic depth gauges against a real Redis: a scrape of every gauge of 1,200 topics reads the store a page of
 * 500 topics at a time ({@code stats(Collection)}: 3 calls), never topic by topic, and not again within the refresh
 * interval; the values are the store's counts; a topic tracked after the read is read alone at its first scrape.
 */
class TopicDepthGaugesTest {
    private static RedisJobStore redis;

    private final AtomicInteger pageReads = new AtomicInteger();
    private final AtomicInteger topicReads = new AtomicInteger();

    @BeforeAll
    static void connect() {
        redis = RedisJobStore.connect(TestRedis.sharedUri());
    }

    @AfterAll
    static void disconnect() {
        redis.close();
    }

    @Test
    void aScrapeOfManyTopicsReadsTheStoreAPageAtATime() {
        String run = "depth-" + UUID.randomUUID() + "-";
        List<NewJob> jobs = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            jobs.add(NewJob.delayed(run + "busy", "j" + i, "{}", 600_000, 3));
        }
        jobs.add(NewJob.delayed(run + "one", "j", "{}", 600_000, 3));
        redis.enqueue(jobs);
        MetricRegistry metrics = new MetricRegistry();
        // a refresh interval longer than the test: on a slow machine the 2,400 scrapes below took longer than the
        // production 5 s, and the counts were read again (6 page reads, not 3), which is what the interval is for
        TopicDepthGauges gauges = new TopicDepthGauges(counting(redis), metrics, TimeUnit.MINUTES.toNanos(10));
        gauges.track(run + "busy");
        gauges.track(run + "one");
        for (int i = 0; i < 1_198; i++) {
            gauges.track(run + "empty-" + i);
        }

        assertThat(scheduled(metrics, run + "busy")).isEqualTo(3L);
        assertThat(scheduled(metrics, run + "one")).isEqualTo(1L);
        long sum = 0;
        for (int i = 0; i < 1_198; i++) {
            sum += scheduled(metrics, run + "empty-" + i) + leased(metrics, run + "empty-" + i);
        }
        assertThat(sum).isZero();
        assertThat(pageReads).as("1,200 topics, 500 a call").hasValue(3);
        assertThat(topicReads).as("no topic read alone").hasValue(0);

        gauges.track(run + "late");
        redis.enqueue(NewJob.delayed(run + "late", "j", "{}", 600_000, 3));
        assertThat(scheduled(metrics, run + "late")).as("tracked after the read: read alone").isEqualTo(1L);
        assertThat(scheduled(metrics, run + "late")).isEqualTo(1L);
        assertThat(topicReads).hasValue(1);
        assertThat(pageReads).as("within the refresh interval").hasValue(3);
    }

    private static Long scheduled(MetricRegistry metrics, String topic) {
        return value(metrics, TopicDepthGauges.PREFIX + topic + ".scheduled");
    }

    private static Long leased(MetricRegistry metrics, String topic) {
        return value(metrics, TopicDepthGauges.PREFIX + topic + ".leased");
    }

    private static Long value(MetricRegistry metrics, String name) {
        Gauge<?> gauge = metrics.getGauges().get(name);
        assertThat(gauge).as(name).isNotNull();
        return (Long) gauge.getValue();
    }

    /** The store, each call passed through; reads of stats counted, by one topic and by a collection. */
    private JobStore counting(JobStore target) {
        return (JobStore) Proxy.newProxyInstance(JobStore.class.getClassLoader(), new Class<?>[] {JobStore.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("stats")) {
                        (args[0] instanceof Collection<?> ? pageReads : topicReads).incrementAndGet();
                    }
                    try {
                        return method.invoke(target, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }
}
