package io.delayq.service.notice;

import com.codahale.metrics.MetricRegistry;
import io.delayq.core.Callback;
import io.delayq.core.Delivery;
import io.delayq.core.Failure;
import io.delayq.core.JobRef;
import io.delayq.core.JobStore;
import io.delayq.core.Lease;
import io.delayq.core.LeaseRef;
import io.delayq.core.NewJob;
import io.delayq.core.OutboxEntry;
import io.delayq.core.archive.DeadLetter;
import io.delayq.core.archive.DeadNotice;
import io.delayq.core.archive.JobArchive;
import io.delayq.core.testing.Await;
import io.delayq.testing.CallbackReceiver;
import io.delayq.postgres.PostgresJobStore;
import io.delayq.postgres.PostgresStoreOptions;
import io.delayq.postgres.archive.PostgresArchiveOptions;
import io.delayq.postgres.archive.PostgresJobArchive;
import io.delayq.postgres.testing.TestPostgres;
import io.delayq.service.delivery.CallbackGuard;
import io.delayq.service.delivery.Signatures;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 26, finding 19, on the PostgreSQL archive (the end-to-end {@code DeadNoticeAfterPurgeOrReplayTest} runs on
 * the MongoDB one): an operator purges or replays the letter in the instant after the sender claimed its notice, before
 * the POST. The real archive is wrapped so that the purge or replay happens right after the claim is recorded; the
 * receiver then gets nothing, and a replayed letter's notice is recorded FAILED, saying why.
 */
class DeadNoticeWithdrawnTest {
    private final JobStore store = PostgresJobStore.connect(TestPostgres.sharedJdbcUrl(), TestPostgres.user(),
            TestPostgres.password(), PostgresStoreOptions.defaults());
    private final JobArchive real = PostgresJobArchive.connect(TestPostgres.sharedJdbcUrl(), TestPostgres.user(),
            TestPostgres.password(), PostgresArchiveOptions.defaults());
    private final CallbackReceiver receiver = new CallbackReceiver();
    private final String topic = "withdrawn-" + UUID.randomUUID();

    @AfterEach
    void close() {
        receiver.close();
        real.close();
        store.close();
    }

    @Test
    void aLetterReplayedRightAfterTheClaimGetsNoNotice() throws Exception {
        String key = deadLetter("replayed");
        send(key, () -> real.recordReplay(key, 0, new DeadLetter.Replay(1, store.now(), "replayed-2", null)));

        DeadNotice notice = real.deadLetter(key).orElseThrow().notice();
        assertThat(notice.state()).isEqualTo(DeadNotice.State.FAILED);
        assertThat(notice.lastError()).contains("replayed");
        assertThat(receiver.received()).as("notices sent").isEmpty();
    }

    @Test
    void aLetterPurgedRightAfterTheClaimGetsNoNotice() throws Exception {
        String key = deadLetter("purged");
        send(key, () -> real.purgeDeadLetters(new JobRef(topic, "purged")));

        assertThat(real.deadLetter(key)).isEmpty();
        assertThat(receiver.received()).as("notices sent").isEmpty();
    }

    /** A job that died with an onDead target, archived from the store's outbox; its letter's key. */
    private String deadLetter(String id) {
        store.enqueue(NewJob.delayed(topic, id, "{\"n\":1}", 0, 1).withDelivery(Delivery.PULL)
                .withOnDead(Callback.of(receiver.url("/notices"))));
        List<Lease> leases = store.reserve(topic, Delivery.PULL, 1, 30_000).leases();
        assertThat(leases).hasSize(1);
        store.nack(LeaseRef.of(leases.get(0)), Failure.dead("gave up", 500));
        List<OutboxEntry> mine = store.readOutbox(10_000).stream()
                .filter(e -> e.job() != null && e.job().ref().equals(new JobRef(topic, id))).toList();
        assertThat(mine).hasSize(1);
        real.write(mine);
        store.deleteOutbox(mine);
        return real.deadLetter(new JobRef(topic, id)).orElseThrow().key();
    }

    /** Runs the sender over an archive that does {@code operatorAction} right after the notice's claim is recorded. */
    private void send(String key, Runnable operatorAction) throws Exception {
        JobArchive archive = (JobArchive) Proxy.newProxyInstance(JobArchive.class.getClassLoader(),
                new Class<?>[] {JobArchive.class}, (proxy, method, args) -> {
                    Object result;
                    try {
                        result = method.invoke(real, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                    if (method.getName().equals("recordNotice") && Boolean.TRUE.equals(result)
                            && key.equals(args[0]) && ((DeadNotice) args[2]).attempts() == (int) args[1] + 1) {
                        operatorAction.run(); // the claim is recorded: the operator acts before the POST
                    }
                    return result;
                });
        DeadNoticeSender sender = new DeadNoticeSender(store, archive, new NoticePolicy(3, 100, 200, 2_000), 10, 100,
                CallbackGuard.permissive(), new Signatures("test-secret"), new MetricRegistry());
        sender.start();
        try {
            Await.until("the notice of " + key + " is settled or its letter gone", Duration.ofSeconds(20), () -> {
                var letter = real.deadLetter(key);
                return letter.isEmpty() || !letter.get().notice().isPending();
            });
            Await.sleep(500); // a pass or more after it: nothing is sent late
        } finally {
            sender.stop();
        }
    }
}
