package io.delayq.mongo;

import com.codahale.metrics.MetricRegistry;
import io.delayq.core.JobRef;
import io.delayq.core.archive.Archiver;
import io.delayq.redis.RedisJobStore;
import io.delayq.redis.testing.TestRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.StreamEntryID;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.params.XAddParams;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static io.delayq.core.testing.StoreFixtures.killJob;
import static io.delayq.core.testing.StoreFixtures.newTopic;
import static io.delayq.core.testing.StoreFixtures.outboxEntries;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * An outbox entry the store cannot decode (a record in another shape, written by the test into Redis) is moved to the
 * store's quarantine by the archiver, counted and reported; every other topic's dead letters keep being archived.
 */
class ArchiverQuarantineTest {
    private static final Archiver.Settings FAST = new Archiver.Settings(100, Duration.ofMillis(50),
            Duration.ofMillis(50), Duration.ofMillis(200));

    @TempDir
    static Path dataDir;

    private static RedisJobStore store;
    private static UnifiedJedis redis;
    private static ArchiveFixture fixture;

    @BeforeAll
    static void start() {
        store = RedisJobStore.connect(TestRedis.sharedUri());
        redis = RedisClient.create(TestRedis.sharedUri());
        fixture = ArchiveFixture.start(dataDir.resolve("quarantine"));
    }

    @AfterAll
    static void stop() {
        fixture.close();
        redis.close();
        store.close();
    }

    @Test
    void anUndecodableEntryIsQuarantinedAndEveryOtherTopicKeepsBeingArchived() throws Exception {
        String spoilt = newTopic();
        String other = newTopic();
        JobRef before = killJob(store, spoilt, "before", 1);
        String quarantine = "dq:{" + spoilt + "#0}:quarantine";
        redis.xadd("dq:{" + spoilt + "#0}:archive", XAddParams.xAddParams(),
                Map.of("i", "bad", "r", "not a record of this version"));
        JobRef after = killJob(store, spoilt, "after", 1);
        JobRef elsewhere = killJob(store, other, "elsewhere", 2);
        var metrics = new MetricRegistry();
        var archiver = new Archiver(store, fixture.archive, metrics, FAST);

        while (archiver.drainOnce() > 0) {
            // drain all that can be drained
        }

        assertThat(fixture.archive.deadLetter(before)).isPresent();
        assertThat(fixture.archive.deadLetter(after)).isPresent();
        assertThat(fixture.archive.deadLetter(elsewhere)).isPresent();
        assertThat(outboxEntries(store, spoilt)).as("the bad entry left the outbox").isZero();
        assertThat(outboxEntries(store, other)).isZero();
        assertThat(redis.xrange(quarantine, (StreamEntryID) null, null)).singleElement().satisfies(e -> {
            assertThat(e.getFields()).containsEntry("i", "bad").containsEntry("r", "not a record of this version");
            assertThat(e.getFields().get("e")).isNotBlank();
        });
        assertThat(metrics.meter(Archiver.QUARANTINED_METER).getCount()).isEqualTo(1);
        assertThat(archiver.healthCheck().execute().getMessage())
                .contains("1 unreadable").contains("quarantine");
        assertThat(archiver.isFailing()).isFalse();
    }
}
