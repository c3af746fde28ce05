package io.delayq.service.schedules;

import io.delayq.core.testing.Await;
import io.delayq.service.DelayqConfiguration;
import io.delayq.service.support.Api;
import io.delayq.service.support.Api.Answer;
import io.delayq.service.support.TestApps;
import io.dropwizard.testing.DropwizardTestSupport;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Exactly once across instances and restarts: a schedule firing every second for a minute, with two instances
 * running, both stopped in the middle for a few seconds (less than {@code misfireAfter}) and two new ones started,
 * yields one job per fire: each fire's job is there, and the topic holds no other.
 */
@Tag("slow")
@Tag("both-stores")
class ScheduleInstancesTest {
    private static final int FIRES = 60;

    @Test
    void twoInstancesFireEachSecondOnceForAMinuteAcrossARestart() throws Exception {
        String topic = TestApps.topic();
        List<DropwizardTestSupport<DelayqConfiguration>> running = new ArrayList<>();
        try {
            running.add(started());
            running.add(started());
            Api api = api(running.get(0));
            long start = (System.currentTimeMillis() / 1000 + 5) * 1000;
            long end = start + (FIRES - 1) * 1000L;
            Answer put = api.put("/v1/topics/" + topic + "/schedules/tick", "{\"cron\":\"* * * * * *\",\"startAt\":\""
                    + Instant.ofEpochMilli(start) + "\",\"endAt\":\"" + Instant.ofEpochMilli(end)
                    + "\",\"job\":{\"payload\":{\"tick\":true}}}");
            assertThat(put.status()).isEqualTo(201);
            // A PUT's fires start after it: on a loaded machine it may come after startAt
            long created = Instant.parse(put.json().path("createdAt").asText()).toEpochMilli();
            long first = Math.max(start, (created / 1000 + 1) * 1000);
            assertThat(first).as("the PUT came %d ms after startAt", created - start).isLessThan(start + 20_000);

            Await.sleep(Math.max(0, start + 20_000 - System.currentTimeMillis()));
            // the newest first: see TestApps.stopAll
            running.remove(running.size() - 1).after(); // one stops; the other goes on
            Await.sleep(3_000);
            running.remove(running.size() - 1).after(); // every instance is down ...
            Await.sleep(5_000);
            running.add(started()); // ... and two new ones start, within misfireAfter (1 min)
            running.add(started());
            api = api(running.get(0));
            Await.sleep(Math.max(0, end + 3_000 - System.currentTimeMillis()));

            List<String> missing = new ArrayList<>();
            for (long at = first; at <= end; at += 1000) {
                String id = ":tick:" + at;
                if (api.get("/v1/topics/" + topic + "/jobs/" + id).status() != 200) {
                    missing.add(id);
                }
            }
            assertThat(missing).as("fires without their job").isEmpty();
            assertThat(api.get("/v1/topics/" + topic).json().path("scheduled").asLong())
                    .as("jobs in the topic: one per fire, no other").isEqualTo((end - first) / 1000 + 1);
            assertThat(api.get("/v1/topics/" + topic + "/schedules/tick").json().path("nextFireTimes")).isEmpty();
        } finally {
            TestApps.stopAll(running);
        }
    }

    private static DropwizardTestSupport<DelayqConfiguration> started() throws Exception {
        DropwizardTestSupport<DelayqConfiguration> app = TestApps.support();
        app.before();
        return app;
    }

    private static Api api(DropwizardTestSupport<DelayqConfiguration> app) {
        return new Api("http://127.0.0.1:" + app.getLocalPort(), TestApps.PRODUCER);
    }
}
