package io.delayq.service.deadletters;

import com.codahale.metrics.MetricRegistry;
import com.fasterxml.jackson.databind.JsonNode;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoDatabase;
import io.delayq.core.JobRef;
import io.delayq.core.JobRules;
import io.delayq.core.JobState;
import io.delayq.core.archive.Archiver;
import io.delayq.core.archive.DeadLetterReplayer;
import io.delayq.core.testing.Await;
import io.delayq.mongo.migration.Migrations;
import io.delayq.mongo.EmbeddedMongo;
import io.delayq.mongo.MongoJobArchive;
import io.delayq.redis.RedisJobStore;
import io.delayq.redis.testing.TestRedis;
import io.delayq.service.audit.AuditTrail;
import io.delayq.service.auth.AuthFactory;
import io.delayq.service.errors.CatchAllMapper;
import io.delayq.service.errors.IllegalArgumentExceptionMapper;
import io.delayq.service.errors.JsonProblemMapper;
import io.delayq.service.errors.StoreExceptionMapper;
import io.delayq.service.errors.ViolationExceptionMapper;
import io.delayq.service.errors.WebApplicationProblemMapper;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.dropwizard.testing.junit5.ResourceExtension;
import jakarta.ws.rs.client.Entity;
import jakarta.ws.rs.client.Invocation;
import jakarta.ws.rs.core.Response;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;

import static io.delayq.core.testing.StoreFixtures.killJob;
import static io.delayq.core.testing.StoreFixtures.newTopic;
import static io.delayq.core.testing.StoreFixtures.reserveOne;
import static io.delayq.service.deadletters.AdminFixtures.ADMIN_TOKEN;
import static io.delayq.service.deadletters.AdminFixtures.PRODUCER_TOKEN;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The admin resource over a real Redis store and a real archive (the embedded wire-protocol server, or
 * {@code MONGO_URI}), with the service's auth filter and problem+json mappers.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class DeadLettersResourceTest {
    private static final RedisJobStore STORE = RedisJobStore.connect(TestRedis.sharedUri());
    private static final EmbeddedMongo MONGO = System.getenv("MONGO_URI") == null ? EmbeddedMongo.start(0, null) : null;
    private static final MongoClient CLIENT = MongoClients.create(MONGO == null ? System.getenv("MONGO_URI") : MONGO.uri());
    private static final MongoDatabase DB = CLIENT.getDatabase("dq-admin-" + UUID.randomUUID().toString().substring(0, 8));
    private static final MongoJobArchive ARCHIVE = migrated();
    private static final Archiver ARCHIVER = new Archiver(STORE, ARCHIVE, new MetricRegistry());

    private static final ResourceExtension RESOURCES = ResourceExtension.builder()
            .setRegisterDefaultExceptionMappers(false)
            .addResource(new DeadLettersResource(ARCHIVE,
                    new DeadLetterReplayer(STORE, ARCHIVE, JobRules.defaults(), 10_000), callback -> {
                        if (!callback.url().startsWith("http")) {
                            throw new IllegalArgumentException("callback.url must be http(s)");
                        }
                    }, new AuditTrail(ARCHIVE, System::currentTimeMillis, new MetricRegistry())))
            .addProvider(authFeature())
            .addProvider(new StoreExceptionMapper())
            .addProvider(new IllegalArgumentExceptionMapper())
            .addProvider(new ViolationExceptionMapper())
            .addProvider(new JsonProblemMapper())
            .addProvider(new WebApplicationProblemMapper())
            .addProvider(new CatchAllMapper())
            .build();

    private static MongoJobArchive migrated() {
        Migrations.apply(DB);
        return new MongoJobArchive(DB, Duration.ofDays(1), MONGO == null ? null : MONGO::commit);
    }

    private static Object authFeature() {
        var auth = new AuthFactory();
        auth.setTokens(AdminFixtures.tokens());
        return auth.build();
    }

    @AfterAll
    static void stop() {
        DB.drop();
        CLIENT.close();
        if (MONGO != null) {
            MONGO.close();
        }
        STORE.close();
    }

    private static JobRef dead(String topic, String id) {
        JobRef ref = killJob(STORE, topic, id, 2);
        while (ARCHIVER.drainOnce() > 0) {
            // move everything dead so far into the archive
        }
        return ref;
    }

    /** The job the n-th replay of a job's (newest) dead letter schedules. */
    private static JobRef replayOf(JobRef dead, int number) {
        return new JobRef(dead.topic(), DeadLetterReplayer.replayId(ARCHIVE.deadLetter(dead).orElseThrow(), number));
    }

    private static Invocation.Builder admin(String path, Map<String, Object> query) {
        var target = RESOURCES.target(path);
        for (var e : query.entrySet()) {
            target = target.queryParam(e.getKey(), e.getValue());
        }
        return target.request().header("Authorization", "Bearer " + ADMIN_TOKEN);
    }

    private static Invocation.Builder admin(String path) {
        return admin(path, Map.of());
    }

    @Test
    void refusesRequestsWithoutAnAdminToken() {
        Response none = RESOURCES.target("/v1/admin/dead-letters").request().get();
        Response producer = RESOURCES.target("/v1/admin/dead-letters").request()
                .header("Authorization", "Bearer " + PRODUCER_TOKEN).get();
        Response replay = RESOURCES.target("/v1/admin/dead-letters/replay").request()
                .header("Authorization", "Bearer " + PRODUCER_TOKEN).post(Entity.json("{}"));

        assertThat(none.getStatus()).isEqualTo(401);
        assertThat(producer.getStatus()).isEqualTo(403);
        assertThat(replay.getStatus()).isEqualTo(403);
    }

    @Test
    void listsNewestFirstPageByPage() {
        String topic = newTopic();
        dead(topic, "a");
        dead(topic, "b");
        dead(topic, "c");

        JsonNode first = admin("/v1/admin/dead-letters", Map.of("topic", topic, "limit", 2)).get(JsonNode.class);
        JsonNode second = admin("/v1/admin/dead-letters",
                Map.of("topic", topic, "limit", 2, "cursor", first.get("nextCursor").asText())).get(JsonNode.class);

        assertThat(first.get("items")).extracting(n -> n.get("id").asText()).containsExactly("c", "b");
        assertThat(second.get("items")).extracting(n -> n.get("id").asText()).containsExactly("a");
        assertThat(second.has("nextCursor")).isFalse();
        JsonNode item = first.get("items").get(0);
        assertThat(item.get("attempts").asInt()).isEqualTo(2);
        assertThat(item.get("lastError").asText()).isEqualTo("HTTP 500 on attempt 2");
        assertThat(item.get("job").get("history")).hasSize(2);
        assertThat(item.get("job").get("payload").get("id").asText()).isEqualTo("c");
    }

    @Test
    void showsOneAndAnswers404ForAJobWithoutADeadLetter() {
        String topic = newTopic();
        dead(topic, "one");

        JsonNode letter = admin("/v1/admin/dead-letters/" + topic + "/one").get(JsonNode.class);
        Response missing = admin("/v1/admin/dead-letters/" + topic + "/nope").get();

        assertThat(letter.get("job").get("state").asText()).isEqualTo("DEAD");
        assertThat(letter.get("replayCount").asInt()).isZero();
        assertThat(missing.getStatus()).isEqualTo(404);
        assertThat(missing.getMediaType().toString()).startsWith("application/problem+json");
        assertThat(missing.readEntity(String.class)).contains("has no dead letter");
    }

    @Test
    void replaysOnceEvenWhenClickedTwice() {
        String topic = newTopic();
        JobRef pay = dead(topic, "pay");
        String r1 = replayOf(pay, 1).id();

        Response first = admin("/v1/admin/dead-letters/" + topic + "/pay/replay").post(Entity.json("{}"));
        Response second = admin("/v1/admin/dead-letters/" + topic + "/pay/replay").post(Entity.json(""));

        assertThat(first.getStatus()).isEqualTo(201);
        assertThat(r1).startsWith("pay:").endsWith(":r1");
        assertThat(first.getLocation().getPath()).isEqualTo("/v1/topics/" + topic + "/jobs/" + r1);
        JsonNode body = first.readEntity(JsonNode.class);
        assertThat(body.get("duplicate").asBoolean()).isFalse();
        assertThat(body.get("job").get("attempts").asInt()).isZero();
        assertThat(body.get("deadLetter").get("replayCount").asInt()).isEqualTo(1);
        assertThat(second.getStatus()).isEqualTo(200);
        assertThat(second.readEntity(JsonNode.class).get("replay").get("newJobId").asText()).isEqualTo(r1);
        assertThat(STORE.find(replayOf(pay, 2))).isEmpty();
        var lease = reserveOne(STORE, topic);
        assertThat(lease.ref().id()).isEqualTo(r1);
        assertThat(lease.attempt()).isEqualTo(1);
    }

    @Test
    void idempotencyKeysAndANewCallback() {
        String topic = newTopic();
        JobRef k = dead(topic, "k");
        String body = "{\"delayMs\": 60000, \"callback\": {\"url\": \"http://127.0.0.1:9/new\"}}";

        Response first = admin("/v1/admin/dead-letters/" + topic + "/k/replay").header("Idempotency-Key", "x1")
                .post(Entity.json(body));
        Response repeat = admin("/v1/admin/dead-letters/" + topic + "/k/replay").header("Idempotency-Key", "x1")
                .post(Entity.json(body));
        Response badCallback = admin("/v1/admin/dead-letters/" + topic + "/k/replay").header("Idempotency-Key", "x2")
                .post(Entity.json("{\"callback\": {\"url\": \"ftp://nope\"}}"));

        assertThat(first.getStatus()).isEqualTo(201);
        JsonNode job = first.readEntity(JsonNode.class).get("job");
        assertThat(job.get("callback").get("url").asText()).isEqualTo("http://127.0.0.1:9/new");
        assertThat(job.get("delivery").asText()).isEqualTo("PUSH");
        assertThat(repeat.getStatus()).isEqualTo(200);
        assertThat(badCallback.getStatus()).isEqualTo(422);
        assertThat(STORE.find(replayOf(k, 2))).isEmpty();
    }

    @Test
    void bulkReplayReplaysTheRestOnce() {
        String topic = newTopic();
        dead(topic, "b0");
        JobRef b1 = dead(topic, "b1");
        dead(topic, "b2");
        admin("/v1/admin/dead-letters/" + topic + "/b0/replay").post(Entity.json("{}")).close();

        JsonNode bulk = admin("/v1/admin/dead-letters/replay").post(Entity.json(Map.of("topic", topic)), JsonNode.class);
        JsonNode again = admin("/v1/admin/dead-letters/replay").post(Entity.json(Map.of("topic", topic)), JsonNode.class);

        assertThat(bulk.get("replayed").asInt()).isEqualTo(2);
        assertThat(bulk.get("more").asBoolean()).isFalse();
        assertThat(again.get("replayed").asInt()).isZero();
        assertThat(STORE.find(replayOf(b1, 1)).orElseThrow().state()).isEqualTo(JobState.SCHEDULED);
    }

    /**
     * Issue 12 #5: a letter that cannot be replayed is reported with its reason, and the others are replayed; the
     * cursor goes on past it; a retry from the top replays nothing twice and reports it again.
     */
    @Test
    void bulkReplayReportsALetterThatCannotBeReplayedAndGoesOn() {
        String topic = newTopic();
        JobRef f0 = dead(topic, "f0");
        JobRef f1 = dead(topic, "f1");
        JobRef f2 = dead(topic, "f2");
        String taken = replayOf(f1, 1).id();
        STORE.enqueue(io.delayq.core.NewJob.delayed(topic, taken, "{\"someone\":\"else\"}", 60_000, 2));

        Response bulk = admin("/v1/admin/dead-letters/replay").post(Entity.json(Map.of("topic", topic, "max", 2)));
        JsonNode body = bulk.readEntity(JsonNode.class);
        JsonNode onwards = admin("/v1/admin/dead-letters/replay")
                .post(Entity.json(Map.of("topic", topic, "cursor", body.get("nextCursor").asText())), JsonNode.class);
        JsonNode retry = admin("/v1/admin/dead-letters/replay").post(Entity.json(Map.of("topic", topic)), JsonNode.class);

        assertThat(bulk.getStatus()).isEqualTo(200);
        assertThat(body.get("replayed").asInt()).isEqualTo(1);
        assertThat(body.get("duplicates").asInt()).isZero();
        assertThat(body.get("failed").asInt()).isEqualTo(1);
        assertThat(body.get("more").asBoolean()).isTrue();
        assertThat(body.has("stopped")).isFalse();
        JsonNode failure = body.get("failures").get(0);
        assertThat(failure.get("id").asText()).isEqualTo("f1");
        assertThat(failure.get("topic").asText()).isEqualTo(topic);
        assertThat(failure.get("key").asText()).isEqualTo(ARCHIVE.deadLetter(f1).orElseThrow().key());
        assertThat(failure.get("status").asInt()).isEqualTo(409);
        assertThat(failure.get("reason").asText()).contains(taken, "already used");
        assertThat(STORE.find(replayOf(f2, 1))).isPresent();

        assertThat(onwards.get("replayed").asInt()).isEqualTo(1);
        assertThat(onwards.get("failed").asInt()).isZero();
        assertThat(onwards.get("more").asBoolean()).isFalse();
        assertThat(onwards.has("nextCursor")).isFalse();
        assertThat(STORE.find(replayOf(f0, 1))).isPresent();

        assertThat(retry.get("replayed").asInt()).isZero();
        assertThat(retry.get("failures")).extracting(n -> n.get("id").asText()).containsExactly("f1");
    }

    /** Issue 12 #7 over HTTP: a purged dead letter is gone for replays too, however it is asked for. */
    @Test
    void aPurgedDeadLetterCannotBeReplayed() {
        String topic = newTopic();
        JobRef gone = dead(topic, "gone");
        String r1 = replayOf(gone, 1).id();

        assertThat(admin("/v1/admin/dead-letters/" + topic + "/gone").delete().getStatus()).isEqualTo(204);
        Response one = admin("/v1/admin/dead-letters/" + topic + "/gone/replay").post(Entity.json("{}"));
        JsonNode bulk = admin("/v1/admin/dead-letters/replay")
                .post(Entity.json(Map.of("topic", topic, "includeReplayed", true)), JsonNode.class);

        assertThat(one.getStatus()).isEqualTo(404);
        assertThat(one.getMediaType().toString()).startsWith("application/problem+json");
        assertThat(bulk.get("replayed").asInt()).isZero();
        assertThat(bulk.get("failed").asInt()).isZero();
        assertThat(STORE.find(new JobRef(topic, r1))).isEmpty();
    }

    @Test
    void aBulkReplayCursorThatWasNotHandedOutIs422() {
        Response bad = admin("/v1/admin/dead-letters/replay").post(Entity.json(Map.of("cursor", "zzz")));

        assertThat(bad.getStatus()).isEqualTo(422);
        assertThat(bad.readEntity(String.class)).contains("nextCursor");
    }

    @Test
    void purgeOneThen404AndPurgeManyNeedsAFilter() {
        String topic = newTopic();
        dead(topic, "p0");
        dead(topic, "p1");
        dead(topic, "p2");

        assertThat(admin("/v1/admin/dead-letters/" + topic + "/p0").delete().getStatus()).isEqualTo(204);
        assertThat(admin("/v1/admin/dead-letters/" + topic + "/p0").get().getStatus()).isEqualTo(404);
        assertThat(admin("/v1/admin/dead-letters/" + topic + "/p0").delete().getStatus()).isEqualTo(404);

        Response unfiltered = admin("/v1/admin/dead-letters/purge").post(Entity.json("{}"));
        assertThat(unfiltered.getStatus()).isEqualTo(422);
        JsonNode purged = admin("/v1/admin/dead-letters/purge").post(Entity.json(Map.of("topic", topic)), JsonNode.class);
        assertThat(purged.get("purged").asLong()).isEqualTo(2);
        assertThat(admin("/v1/admin/dead-letters", Map.of("topic", topic)).get(JsonNode.class).get("items")).isEmpty();
    }

    @Test
    void badFiltersAre422WithAMessage() {
        Response badTime = admin("/v1/admin/dead-letters", Map.of("from", "yesterday")).get();
        Response badLimit = admin("/v1/admin/dead-letters", Map.of("limit", 0)).get();
        Response badCursor = admin("/v1/admin/dead-letters", Map.of("cursor", "zzz")).get();
        Response badTopic = admin("/v1/admin/dead-letters", Map.of("topic", "no spaces")).get();

        assertThat(badTime.getStatus()).isEqualTo(422);
        assertThat(badTime.readEntity(String.class)).contains("RFC 3339");
        assertThat(badLimit.getStatus()).isEqualTo(422);
        assertThat(badCursor.getStatus()).isEqualTo(422);
        assertThat(badTopic.getStatus()).isEqualTo(422);
    }

    @Test
    void timesFilterOnDeadAt() {
        String topic = newTopic();
        dead(topic, "t0");
        long between = System.currentTimeMillis() + 1;
        Await.sleep(20);
        dead(topic, "t1");

        JsonNode after = admin("/v1/admin/dead-letters",
                Map.of("topic", topic, "from", java.time.Instant.ofEpochMilli(between).toString())).get(JsonNode.class);
        JsonNode before = admin("/v1/admin/dead-letters",
                Map.of("topic", topic, "to", java.time.Instant.ofEpochMilli(between).toString())).get(JsonNode.class);
        assertThat(admin("/v1/admin/dead-letters", Map.of("topic", topic, "to", between)).get().getStatus())
                .as("epoch milliseconds are no longer read: RFC 3339 only").isEqualTo(422);

        assertThat(after.get("items")).extracting(n -> n.get("id").asText()).containsExactly("t1");
        assertThat(before.get("items")).extracting(n -> n.get("id").asText()).containsExactly("t0");
    }
}
