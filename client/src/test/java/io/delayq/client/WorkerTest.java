package io.delayq.client;

import io.delayq.core.testing.Await;
import io.delayq.service.DelayqConfiguration;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/** The Worker helper against the running service. */
@ExtendWith(DropwizardExtensionsSupport.class)
class WorkerTest {
    static final DropwizardAppExtension<DelayqConfiguration> APP = TestService.app();

    private final List<Worker> workers = new ArrayList<>();
    private DelayqClient client;
    private String topic;

    @BeforeEach
    void setUp() {
        client = TestService.client(APP);
        topic = TestService.topic();
    }

    @AfterEach
    void closeWorkers() {
        workers.forEach(Worker::close);
    }

    @Test
    void manyWorkersNeverRunTheSameJobTwiceAndAckThemAll() throws Exception {
        int jobs = 200;
        List<JobRequest> batch = new ArrayList<>();
        for (int i = 0; i < jobs; i++) {
            batch.add(JobRequest.builder().id("j" + i).delay(Duration.ofMillis(i % 2 == 0 ? 0 : 300))
                    .payload(Map.of("i", i)).build());
        }
        Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
        for (int w = 0; w < 4; w++) {
            workers.add(Worker.builder(client, topic).concurrency(4).pollWait(Duration.ofSeconds(1))
                    .handler(job -> {
                        runs.computeIfAbsent(job.id(), id -> new AtomicInteger()).incrementAndGet();
                        Thread.sleep(ThreadLocalRandom.current().nextInt(5));
                    })
                    .build().start());
        }
        client.scheduleBatch(topic, batch.subList(0, 100));
        client.scheduleBatch(topic, batch.subList(100, jobs));

        Await.until("every job acked", Duration.ofSeconds(60),
                () -> workers.stream().mapToLong(Worker::acked).sum() == jobs);

        assertThat(runs).hasSize(jobs);
        assertThat(runs.values()).allSatisfy(count -> assertThat(count.get()).isEqualTo(1));
        TopicInfo stats = client.topic(topic);
        assertThat(stats.succeeded()).isEqualTo(jobs);
        assertThat(stats.scheduled()).isZero();
        assertThat(stats.leased()).isZero();
        assertThat(workers.stream().filter(w -> w.acked() > 0).count()).as("work spread over workers").isGreaterThan(1);
    }

    @Test
    void aJobOfACrashedWorkerComesBackToAnother() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        Worker crashing = Worker.builder(client, topic).leaseTime(Duration.ofSeconds(2))
                .handler(job -> {
                    started.countDown();
                    Thread.sleep(60_000);
                })
                .build().start();
        workers.add(crashing);
        client.schedule(topic, JobRequest.builder().id("j").payload("x").build());
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();

        crashing.crash();
        List<LeasedJob> attempts = new CopyOnWriteArrayList<>();
        workers.add(Worker.builder(client, topic).handler(attempts::add).build().start());

        Await.until("the handler ran", Duration.ofSeconds(10), () -> !attempts.isEmpty());
        assertThat(attempts).singleElement().satisfies(job -> assertThat(job.attempt()).isEqualTo(2));
        Await.until("the job succeeded", Duration.ofSeconds(5),
                () -> "SUCCEEDED".equals(client.get(topic, "j").state()));
        assertThat(crashing.acked()).isZero();
    }

    @Test
    void aHandlerCanPutAJobBackForLater() throws Exception {
        List<Long> attemptsAt = new CopyOnWriteArrayList<>();
        workers.add(Worker.builder(client, topic)
                .handler(job -> {
                    attemptsAt.add(System.currentTimeMillis());
                    if (job.attempt() == 1) {
                        throw Retry.in(Duration.ofMillis(500), "the mail server is down");
                    }
                })
                .build().start());

        client.schedule(topic, JobRequest.builder().id("j").payload("x").build());

        Await.until("the job succeeded", Duration.ofSeconds(10),
                () -> "SUCCEEDED".equals(client.get(topic, "j").state()));
        assertThat(attemptsAt).hasSize(2);
        assertThat(attemptsAt.get(1) - attemptsAt.get(0)).isGreaterThanOrEqualTo(500);
        assertThat(client.get(topic, "j").history()).extracting(JobInfo.Attempt::error)
                .contains("the mail server is down");
    }

    @Test
    void aFailingHandlerNacksWithItsErrorAndTheRetryPolicyBringsTheJobBack() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        Worker worker = Worker.builder(client, topic)
                .handler(job -> {
                    if (calls.incrementAndGet() == 1) {
                        throw new IllegalStateException("boom");
                    }
                })
                .build().start();
        workers.add(worker);

        client.schedule(topic, JobRequest.builder().id("j").payload("x")
                .backoff(Backoff.schedule(Duration.ofMillis(200))).build());

        Await.until("the job succeeded", Duration.ofSeconds(10),
                () -> "SUCCEEDED".equals(client.get(topic, "j").state()));
        assertThat(calls.get()).isEqualTo(2);
        assertThat(worker.nacked()).isEqualTo(1);
        assertThat(client.get(topic, "j").history()).extracting(JobInfo.Attempt::error)
                .contains("IllegalStateException: boom");
    }

    @Test
    void aLongHandlerKeepsItsLease() throws Exception {
        List<LeasedJob> runs = new CopyOnWriteArrayList<>();
        // A handler running more than twice its lease: the worker extends it at two thirds (2 s), so each extension has
        // 1 s to reach the service before the lease ends (900 ms leases left 300 ms, which a loaded CI machine missed).
        Worker worker = Worker.builder(client, topic).concurrency(2).leaseTime(Duration.ofSeconds(3))
                .handler(job -> {
                    runs.add(job);
                    Thread.sleep(6_500);
                })
                .build().start();
        workers.add(worker);

        client.schedule(topic, JobRequest.builder().id("j").payload("x").build());

        Await.until("the worker acked the job", Duration.ofSeconds(20), () -> worker.acked() == 1);
        assertThat(runs).singleElement().satisfies(job -> assertThat(job.attempt()).isEqualTo(1));
        assertThat(client.get(topic, "j").state()).isEqualTo("SUCCEEDED");
    }

    @Test
    void closeWaitsForRunningHandlers() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        Worker worker = Worker.builder(client, topic)
                .handler(job -> {
                    started.countDown();
                    Thread.sleep(500);
                })
                .build().start();
        client.schedule(topic, JobRequest.builder().id("j").payload("x").build());
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();

        worker.close();

        assertThat(worker.acked()).isEqualTo(1);
        assertThat(client.get(topic, "j").state()).isEqualTo("SUCCEEDED");
    }

    /**
     * Closing gives back what the worker still holds without using an attempt (issue 26, finding 23): a job on its
     * last attempt whose handler outlives the shutdown timeout is released, not nacked into a dead letter, and another
     * worker then runs it as the same attempt.
     */
    @Test
    void closeReleasesTheJobsItStillHoldsWithoutUsingAnAttempt() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        Worker slow = Worker.builder(client, topic).shutdownTimeout(Duration.ofMillis(200))
                .handler(job -> {
                    started.countDown();
                    Thread.sleep(60_000);
                })
                .build().start();
        client.schedule(topic, JobRequest.builder().id("last").payload("x").maxAttempts(1).build());
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();

        slow.close();

        JobInfo released = client.get(topic, "last");
        assertThat(released.state()).as("given back, not dead").isEqualTo("SCHEDULED");
        assertThat(released.attempts()).as("its attempt given back").isZero();
        List<LeasedJob> runs = new CopyOnWriteArrayList<>();
        workers.add(Worker.builder(client, topic).pollWait(Duration.ofSeconds(1)).handler(runs::add).build().start());
        Await.until("another worker runs it", () -> client.get(topic, "last").state().equals("SUCCEEDED"));
        assertThat(runs).singleElement().satisfies(job -> assertThat(job.attempt()).isEqualTo(1));
    }
}
