package io.delayq.service.schedules;

import com.fasterxml.jackson.databind.JsonNode;
import io.delayq.core.testing.Await;
import io.delayq.service.DelayqApplication;
import io.delayq.service.DelayqConfiguration;
import io.delayq.service.support.Api;
import io.delayq.service.support.Api.Answer;
import io.delayq.service.support.TestApps;
import io.dropwizard.testing.ResourceHelpers;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Schedules count against a tenant's {@code maxPendingJobs} on a running service: a new schedule at the limit is
 * refused like an enqueue (429 quota-exceeded naming the quota, limit, use and Retry-After) and stores nothing; the
 * schedules show in the tenant's use and keep jobs out; a replace is admitted; run now is an enqueue; a cron fire at
 * the limit is still enqueued (docs/schedules.md).
 */
@ExtendWith(DropwizardExtensionsSupport.class)
@Tag("both-stores")
class ScheduleQuotaTest {
    static final DropwizardAppExtension<DelayqConfiguration> APP = new DropwizardAppExtension<>(
            DelayqApplication.class, ResourceHelpers.resourceFilePath("tenants-test-config.yml"),
            TestApps.overrides());
    private static final int LIMIT = 3;
    private static final String FAR_FUTURE = "2100-01-01T00:00:00Z";

    private final String tenant = "sq" + UUID.randomUUID().toString().substring(0, 8);
    private final String jobs = tenant + ".jobs";
    private final String scheduled = tenant + ".sched";
    private Api operator;

    @Test
    void aScheduleIsAPendingJobOfItsTenant() {
        operator = TestApps.api(APP).as(TestApps.ADMIN);
        Answer made = operator.put("/v1/admin/tenants/" + tenant, "{\"topics\":[\"" + tenant + ".*\"],"
                + "\"quotas\":{\"maxPendingJobs\":" + LIMIT + "}}");
        assertThat(made.status()).as(made.toString()).isEqualTo(201);
        for (String id : new String[]{"j1", "j2"}) {
            assertThat(operator.post("/v1/topics/" + jobs + "/jobs", "{\"id\":\"" + id + "\",\"delayMs\":3600000,"
                    + "\"payload\":{}}").status()).isEqualTo(201);
        }
        assertThat(putSchedule("s1", "0 0 2 * * *").status()).as("the third pending job").isEqualTo(201);

        // at the limit: a new schedule is refused like an enqueue, and nothing is stored
        Answer refused = putSchedule("s2", "0 0 2 * * *");
        assertThat(refused.status()).as(refused.toString()).isEqualTo(429);
        assertThat(refused.contentType()).startsWith("application/problem+json");
        assertThat(refused.json().path("type").asText()).isEqualTo("urn:delayq:problem:quota-exceeded");
        assertThat(refused.json().path("tenant").asText()).isEqualTo(tenant);
        assertThat(refused.json().path("quota").asText()).isEqualTo("maxPendingJobs");
        assertThat(refused.json().path("limit").asLong()).isEqualTo(LIMIT);
        assertThat(refused.json().path("current").asLong()).isEqualTo(LIMIT);
        assertThat(refused.header("Retry-After")).isEqualTo("1");
        assertThat(operator.get("/v1/topics/" + scheduled + "/schedules/s2").status()).isEqualTo(404);

        // the tenant's use shows it; it keeps a job out; its run now is an enqueue
        JsonNode use = operator.get("/v1/admin/tenants/" + tenant).json().path("use");
        assertThat(use.path("pendingJobs").asLong()).as(use.toString()).isEqualTo(LIMIT);
        assertThat(use.path("schedules").asLong()).isEqualTo(1);
        assertThat(use.path("topics").asLong()).as("the topic with only a schedule counts").isEqualTo(2);
        assertThat(operator.post("/v1/topics/" + jobs + "/jobs", "{\"id\":\"j3\",\"payload\":{}}").status())
                .isEqualTo(429);
        Answer runNow = operator.post("/v1/topics/" + scheduled + "/schedules/s1/run", "{}");
        assertThat(runNow.status()).as(runNow.toString()).isEqualTo(429);
        assertThat(runNow.json().path("quota").asText()).isEqualTo("maxPendingJobs");

        // a tenant with schedules is not deleted
        Answer delete = operator.delete("/v1/admin/tenants/" + tenant);
        assertThat(delete.status()).isEqualTo(409);
        assertThat(delete.detail()).contains("schedules");

        // a replace holds the place it took; one whose cron fires now fires at the limit all the same
        assertThat(putSchedule("s1", "* * * * * *").status()).isEqualTo(200);
        Await.until("a fire of s1 enqueued at the tenant's limit", () -> operator
                .get("/v1/topics/" + scheduled + "/schedules/s1").json().path("lastFires").path(0).path("jobId")
                .isTextual());
        String jobId = operator.get("/v1/topics/" + scheduled + "/schedules/s1").json().path("lastFires").path(0)
                .path("jobId").asText();
        assertThat(operator.get("/v1/topics/" + scheduled + "/jobs/" + jobId).status()).isEqualTo(200);
        assertThat(operator.get("/v1/admin/tenants/" + tenant).json().path("use").path("pendingJobs").asLong())
                .as("over the limit by the fires, not refused").isGreaterThan(LIMIT);
    }

    private Answer putSchedule(String name, String cron) {
        String startAt = cron.startsWith("*") ? "" : ",\"startAt\":\"" + FAR_FUTURE + "\"";
        return operator.put("/v1/topics/" + scheduled + "/schedules/" + name, "{\"cron\":\"" + cron + "\","
                + "\"timeZone\":\"UTC\"" + startAt + ",\"job\":{\"payload\":{}}}");
    }

    /** The store is shared with other classes: the tenant and what it holds go (best effort). */
    @AfterEach
    void removeTheTenant() {
        if (operator == null) {
            return;
        }
        operator.delete("/v1/topics/" + scheduled + "/schedules/s1");
        for (String topic : new String[]{jobs, scheduled}) {
            Answer cancel = operator.post("/v1/admin/bulk-operations", "{\"target\":\"jobs\",\"kind\":\"cancel\","
                    + "\"filter\":{\"topic\":\"" + topic + "\"}}");
            if (cancel.status() == 202) {
                String id = cancel.json().path("id").asText();
                Await.until("the cancel of " + topic, () -> !"running".equals(
                        operator.get("/v1/admin/bulk-operations/" + id).json().path("state").asText()));
            }
        }
        operator.delete("/v1/admin/tenants/" + tenant);
    }
}
