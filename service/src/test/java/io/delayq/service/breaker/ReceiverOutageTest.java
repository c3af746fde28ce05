package io.delayq.service.breaker;

import com.fasterxml.jackson.databind.JsonNode;
import io.delayq.core.breaker.Origins;
import io.delayq.service.DelayqConfiguration;
import io.delayq.service.support.Api;
import io.delayq.service.support.Circuits;
import io.delayq.service.support.Api.Answer;
import io.delayq.service.support.TestApps;
import io.delayq.testing.CallbackReceiver;
import io.delayq.testing.CallbackReceiver.Received;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The done-when for the endpoint circuit breaker: a receiver is down (connection refused) for 2 minutes while
 * 1,000 jobs with {@code maxAttempts: 3} and a 1 s backoff fall due. Two topics run at once, each with a receiver of
 * its own that is down for the same 2 minutes:
 * <ul>
 *   <li>with the breaker: no job dies; every job is delivered after the receiver is back; its attempts count only
 *       the real tries (the holds are history entries marked held, and the attempt the receiver is told is the job's
 *       count); the backlog reaches the receiver at no more than the configured rate (plus a margin, over any 2 s);</li>
 *   <li>with the topic's breaker turned off: every job dies, as without a breaker.</li>
 * </ul>
 * About three minutes: the outage itself, then 1,000 jobs released at 30/s.
 */
@Tag("slow") // a 2-minute receiver outage and its release: ~3 min (CONTRIBUTING.md: the fast run leaves it out)
@ExtendWith(DropwizardExtensionsSupport.class)
class ReceiverOutageTest {
    static final DropwizardAppExtension<DelayqConfiguration> APP = TestApps.app(
            ConfigOverride.config("delivery.breaker.enabled", "true"));

    private static final int JOBS = 1_000;
    private static final int BATCH = 50;
    /** Jobs fall due over the first 30 s of the outage. */
    private static final long SPREAD_MS = 30_000;
    private static final Duration OUTAGE = Duration.ofMinutes(2);
    private static final int RELEASE_PER_SECOND = 30;
    private static final long WINDOW_MS = 2_000;
    private static final double RATE_MARGIN = 0.3;

    @Test
    void anOutageHoldsJobsWithoutUsingTheirAttemptsAndReleasesThemAtTheConfiguredRate() throws Exception {
        Api api = TestApps.api(APP);
        Api admin = api.as(TestApps.ADMIN);
        String guarded = TestApps.topic();
        String unguarded = TestApps.topic();
        try (CallbackReceiver withBreaker = new CallbackReceiver();
             CallbackReceiver withoutBreaker = new CallbackReceiver()) {
            withBreaker.stop();
            withoutBreaker.stop();
            configure(admin, guarded, withBreaker.url("/guarded"), """
                    {"enabled": true, "failureThreshold": 5, "probeInterval": "2s", "maxProbeInterval": "8s",
                     "releasePerSecond": %d}""".formatted(RELEASE_PER_SECOND));
            configure(admin, unguarded, withoutBreaker.url("/unguarded"), "{\"enabled\": false}");

            long downAt = System.currentTimeMillis();
            schedule(api, guarded);
            schedule(api, unguarded);
            sleepUntil(downAt + OUTAGE.toMillis());

            // The end of the outage: the guarded topic's circuit is open and holds its jobs; the other one's died.
            String origin = Origins.of(withBreaker.url("/"));
            JsonNode circuit = circuitOf(admin, origin);
            assertThat(circuit.path("state").asText()).as("%s", circuit).isEqualTo("OPEN");
            assertThat(circuit.path("heldJobs").asLong()).as("%s", circuit).isPositive();
            assertThat(stats(api, guarded).path("dead").asLong()).as("guarded: dead during the outage").isZero();
            assertThat(stats(api, unguarded).path("dead").asLong()).as("unguarded: dead during the outage")
                    .isEqualTo(JOBS);

            withBreaker.start();
            withoutBreaker.start();
            long upAt = System.currentTimeMillis();
            JsonNode done = awaitSucceeded(api, guarded, upAt + 120_000);
            long doneAt = System.currentTimeMillis();

            // With the breaker: nothing dead, every job delivered after the receiver was back.
            assertThat(done.path("dead").asLong()).as("guarded dead: %s", done).isZero();
            assertThat(done.path("succeeded").asLong()).as("guarded: %s", done).isEqualTo(JOBS);
            List<Received> arrivals = withBreaker.received();
            Map<String, List<Received>> byId = arrivals.stream().collect(Collectors.groupingBy(Received::id));
            assertThat(byId).as("distinct jobs received").hasSize(JOBS);
            assertThat(arrivals).allSatisfy(a -> assertThat(a.receivedAtMs()).isGreaterThanOrEqualTo(upAt));
            assertThat(deadLetters(admin, guarded)).as("guarded dead letters").isEmpty();

            // Attempts count real tries only: the holds are in the history, marked held, and give the attempt back.
            int realTries = 0;
            int holds = 0;
            for (int i = 0; i < JOBS; i++) {
                String id = id(i);
                JsonNode job = api.get("/v1/topics/" + guarded + "/jobs/" + id).json();
                assertThat(job.path("state").asText()).as("%s", job).isEqualTo("SUCCEEDED");
                int attempts = job.path("attempts").asInt();
                List<JsonNode> history = new ArrayList<>();
                job.path("history").forEach(history::add);
                long held = history.stream().filter(h -> h.path("held").asBoolean()).count();
                long tries = history.size() - held;
                assertThat(history.size()).as("history of %s kept whole (the store keeps 100)", id).isLessThan(100);
                assertThat(held).as("holds of %s: %s", id, job).isPositive();
                assertThat(attempts).as("attempts of %s: %s", id, job).isEqualTo((int) tries).isBetween(1, 3);
                List<Received> got = byId.get(id);
                assertThat(got.get(got.size() - 1).attempt()).as("Delayq-Attempt of %s", id).isEqualTo(attempts);
                realTries += (int) tries;
                holds += (int) held;
            }

            // The backlog was released at the configured rate (a bound on behaviour, per 2 s window).
            List<Long> times = arrivals.stream().map(Received::receivedAtMs).sorted().toList();
            int mostInWindow = mostInAnyWindow(times, WINDOW_MS);
            int allowed = (int) Math.floor(RELEASE_PER_SECOND * (WINDOW_MS / 1_000.0) * (1 + RATE_MARGIN));
            double overall = (times.size() - 1) * 1_000.0 / Math.max(1, times.get(times.size() - 1) - times.get(0));
            System.out.printf("ReceiverOutageTest: receiver back at +%d s; %d jobs delivered in %.1f s after it (first"
                            + " %.1f s after it), %.1f jobs/s overall, at most %d in any %d ms (allowed %d);"
                            + " %d real tries, %d holds%n", (upAt - downAt) / 1_000, JOBS,
                    (doneAt - upAt) / 1_000.0, (times.get(0) - upAt) / 1_000.0, overall, mostInWindow, WINDOW_MS,
                    allowed, realTries, holds);
            assertThat(mostInWindow).as("callbacks in any %d ms of the release", WINDOW_MS).isLessThanOrEqualTo(allowed);
            assertThat(overall).as("jobs/s over the release").isLessThanOrEqualTo(RELEASE_PER_SECOND * (1 + RATE_MARGIN));

            JsonNode closed = circuitOf(admin, origin);
            assertThat(closed.path("state").asText()).as("%s", closed).isEqualTo("CLOSED");
            assertThat(closed.path("closedAt").asText()).as("%s", closed).isNotBlank();

            // Without the breaker: every job died before the receiver came back, as today.
            assertThat(stats(api, unguarded).path("dead").asLong()).isEqualTo(JOBS);
            assertThat(withoutBreaker.received()).as("unguarded deliveries").isEmpty();
            assertThat(awaitDeadLetters(admin, unguarded)).as("unguarded dead letters").isNotEmpty();
        }
    }

    private static void configure(Api admin, String topic, String callbackUrl, String breaker) {
        Answer put = admin.put("/v1/topics/" + topic, """
                {"callback": {"url": "%s"}, "maxAttempts": 3, "backoff": {"type": "schedule", "delays": ["1s"]},
                 "breaker": %s}""".formatted(callbackUrl, breaker));
        assertThat(put.status()).as(put.toString()).isEqualTo(200);
    }

    private static void schedule(Api api, String topic) {
        for (int from = 0; from < JOBS; from += BATCH) {
            StringBuilder body = new StringBuilder("{\"jobs\": [");
            for (int i = from; i < from + BATCH; i++) {
                body.append(i == from ? "" : ",").append("{\"id\": \"").append(id(i)).append("\", \"delayMs\": ")
                        .append(i * SPREAD_MS / JOBS).append(", \"payload\": {\"n\": ").append(i).append("}}");
            }
            Answer batch = api.post("/v1/topics/" + topic + "/jobs/batch", body.append("]}").toString());
            assertThat(batch.status()).as(batch.toString()).isEqualTo(200);
            assertThat(batch.json().path("created").asInt()).as(batch.toString()).isEqualTo(BATCH);
        }
    }

    private static String id(int i) {
        return "job-%04d".formatted(i);
    }

    private static JsonNode stats(Api api, String topic) {
        return api.get("/v1/topics/" + topic).json();
    }

    private static JsonNode awaitSucceeded(Api api, String topic, long deadlineMs) throws InterruptedException {
        JsonNode stats = stats(api, topic);
        while (stats.path("succeeded").asLong() + stats.path("dead").asLong() < JOBS
                && System.currentTimeMillis() < deadlineMs) {
            Thread.sleep(500);
            stats = stats(api, topic);
        }
        return stats;
    }

    private static JsonNode circuitOf(Api admin, String origin) {
        JsonNode circuit = Circuits.of(admin, origin);
        if (circuit == null) {
            throw new AssertionError("no circuit for " + origin);
        }
        return circuit;
    }

    private static List<JsonNode> deadLetters(Api admin, String topic) {
        Answer page = admin.get("/v1/admin/dead-letters?topic=" + topic);
        assertThat(page.status()).as(page.toString()).isEqualTo(200);
        List<JsonNode> items = new ArrayList<>();
        page.json().path("items").forEach(items::add);
        return items;
    }

    /** The archiver moves dead letters from the store's outbox a moment after they die. */
    private static List<JsonNode> awaitDeadLetters(Api admin, String topic) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 15_000;
        List<JsonNode> items = deadLetters(admin, topic);
        while (items.isEmpty() && System.currentTimeMillis() < deadline) {
            Thread.sleep(200);
            items = deadLetters(admin, topic);
        }
        return items;
    }

    static int mostInAnyWindow(List<Long> sortedTimes, long windowMs) {
        int most = 0;
        int start = 0;
        for (int end = 0; end < sortedTimes.size(); end++) {
            while (sortedTimes.get(end) - sortedTimes.get(start) >= windowMs) {
                start++;
            }
            most = Math.max(most, end - start + 1);
        }
        return most;
    }

    private static void sleepUntil(long epochMs) throws InterruptedException {
        long left = epochMs - System.currentTimeMillis();
        if (left > 0) {
            Thread.sleep(left);
        }
    }
}
