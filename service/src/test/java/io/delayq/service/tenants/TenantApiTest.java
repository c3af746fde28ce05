package io.delayq.service.tenants;

import com.fasterxml.jackson.databind.JsonNode;
import io.delayq.service.DelayqConfiguration;
import io.delayq.service.support.Api;
import io.delayq.service.support.Api.Answer;
import io.delayq.service.support.TestApps;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The tenant API on one instance: made, read (secrets by id only, with current use), changed (a rotation keeps a
 * secret sent by id), refused (bad input 400 naming the field, an overlap 409 naming the other tenant, a tenant of the
 * configuration 409, a tenant's token 403) and deleted (409 while it owns jobs); every refusal changes nothing.
 */
@Tag("both-stores")
@ExtendWith(DropwizardExtensionsSupport.class)
class TenantApiTest {
    static final DropwizardAppExtension<DelayqConfiguration> APP = TenancyApps.app();

    private Api admin;
    private String name;

    @BeforeEach
    void setUp() {
        admin = TestApps.api(APP).as(TestApps.ADMIN);
        name = TenancyApps.tenantName();
    }

    private String body(String pattern, String extra) {
        return "{\"topics\": [\"" + pattern + "\"]" + extra + "}";
    }

    @Test
    void madeReadChangedAndListedWithSecretsByIdOnly() {
        Answer put = admin.put("/v1/admin/tenants/" + name, body(name + ".*", ", \"weight\": 3, \"quotas\":"
                + " {\"maxPendingJobs\": 100, \"enqueuePerSecond\": 5, \"enqueueBurst\": 10}, \"signingSecrets\":"
                + " [{\"id\": \"s1\", \"secret\": \"first-secret-0123456789\"}]"));

        assertThat(put.status()).as(put.toString()).isEqualTo(201);
        assertThat(put.raw().body()).doesNotContain("first-secret-0123456789");
        JsonNode got = admin.get("/v1/admin/tenants/" + name).json();
        assertThat(got.path("weight").asInt()).isEqualTo(3);
        assertThat(got.path("topics").get(0).asText()).isEqualTo(name + ".*");
        assertThat(got.path("quotas").path("enqueueBurst").asInt()).isEqualTo(10);
        assertThat(got.path("signingSecrets").get(0).path("id").asText()).isEqualTo("s1");
        assertThat(got.path("signingSecrets").get(0).has("secret")).isFalse();
        assertThat(got.path("fromConfig").asBoolean()).isFalse();
        assertThat(got.path("use").path("pendingJobs").asLong()).isZero();

        // a rotation: the old secret by id (its value kept), the new one with its value
        Answer rotate = admin.put("/v1/admin/tenants/" + name, body(name + ".*", ", \"signingSecrets\":"
                + " [{\"id\": \"s1\"}, {\"id\": \"s2\", \"secret\": \"second-secret-0123456789\"}]"));
        assertThat(rotate.status()).as(rotate.toString()).isEqualTo(200);
        assertThat(rotate.json().path("signingSecrets").findValuesAsText("id")).containsExactly("s1", "s2");
        assertThat(rotate.json().path("weight").asInt()).isEqualTo(1);

        JsonNode list = admin.get("/v1/admin/tenants").json().path("tenants");
        assertThat(list.findValuesAsText("name")).contains(name, "cfgteam");
        assertThat(admin.get("/v1/admin/tenants").raw().body())
                .doesNotContain("second-secret-0123456789").doesNotContain("cfgteam-secret-0123456789");
    }

    @Test
    void badInputIs400NamingTheFieldAndChangesNothing() {
        String path = "/v1/admin/tenants/" + name;
        assertProblem(admin.put(path, "{}"), 400, "topics");
        assertProblem(admin.put(path, "{\"topics\": [\"a*b\"]}"), 400, "topics[0]");
        assertProblem(admin.put(path, body(name + ".*", ", \"weight\": 0")), 400, "weight");
        assertProblem(admin.put(path, body(name + ".*", ", \"signingSecrets\": [{\"id\": \"s\", \"secret\":"
                + " \"short\"}]")), 400, "signingSecrets[0].secret");
        assertProblem(admin.put(path, body(name + ".*", ", \"signingSecrets\": [{\"id\": \"s\"}]")), 400,
                "signingSecrets[0].secret");
        Answer quotas = admin.put(path, body(name + ".*", ", \"quotas\": {\"maxPendingJobs\": -1}"));
        assertThat(quotas.status()).as(quotas.toString()).isEqualTo(400);
        assertThat(quotas.contentType()).startsWith("application/problem+json");
        assertThat(quotas.raw().body()).contains("maxPendingJobs");
        Answer unknown = admin.put(path, body(name + ".*", ", \"colour\": 1"));
        assertThat(unknown.status()).isEqualTo(400);
        assertThat(unknown.raw().body()).contains("colour");

        assertThat(admin.get(path).status()).isEqualTo(404);
    }

    @Test
    void overlapIs409NamingTheOtherTenant() {
        assertThat(admin.put("/v1/admin/tenants/" + name, body(name + ".*", "")).status()).isEqualTo(201);
        String other = TenancyApps.tenantName();

        Answer overlap = admin.put("/v1/admin/tenants/" + other, body(name + ".eu.*", ""));
        Answer exact = admin.put("/v1/admin/tenants/" + other, body(name + ".x", ""));
        Answer config = admin.put("/v1/admin/tenants/" + other, body("cfgteam.jobs", ""));

        assertThat(overlap.status()).isEqualTo(409);
        assertThat(overlap.contentType()).startsWith("application/problem+json");
        assertThat(overlap.detail()).contains(name);
        assertThat(exact.status()).isEqualTo(409);
        assertThat(config.status()).isEqualTo(409);
        assertThat(config.detail()).contains("cfgteam");
        assertThat(admin.get("/v1/admin/tenants/" + other).status()).isEqualTo(404);
        // the bare prefix is not covered by name.*
        assertThat(admin.put("/v1/admin/tenants/" + other, body(name, "")).status()).isEqualTo(201);
    }

    @Test
    void configuredTenantIsReadOnly() {
        Answer put = admin.put("/v1/admin/tenants/cfgteam", body("cfgteam.*", ", \"weight\": 9"));
        Answer delete = admin.delete("/v1/admin/tenants/cfgteam");

        assertThat(put.status()).isEqualTo(409);
        assertThat(put.detail()).contains("configuration");
        assertThat(delete.status()).isEqualTo(409);
        JsonNode got = admin.get("/v1/admin/tenants/cfgteam").json();
        assertThat(got.path("weight").asInt()).isEqualTo(2);
        assertThat(got.path("fromConfig").asBoolean()).isTrue();
        assertThat(got.path("quotas").path("maxPayloadBytes").asInt()).isEqualTo(200);
    }

    @Test
    void aTenantsAdminReadsItsOwnTenantOnlyAndChangesNone() {
        Api tenantAdmin = admin.as(TenancyApps.CFG_ADMIN);
        assertThat(admin.put("/v1/admin/tenants/" + name, body(name + ".*", "")).status()).isEqualTo(201);

        assertThat(tenantAdmin.get("/v1/admin/tenants").json().path("tenants").findValuesAsText("name"))
                .containsExactly("cfgteam");
        assertThat(tenantAdmin.get("/v1/admin/tenants/" + name).status()).isEqualTo(404);
        assertThat(tenantAdmin.put("/v1/admin/tenants/" + name, body(name + ".*", ", \"weight\": 5")).status())
                .isEqualTo(403);
        assertThat(tenantAdmin.delete("/v1/admin/tenants/" + name).status()).isEqualTo(403);
        assertThat(admin.as(TestApps.PRODUCER).get("/v1/admin/tenants").status()).isEqualTo(403);
        assertThat(admin.get("/v1/admin/tenants/" + name).json().path("weight").asInt()).isEqualTo(1);
    }

    @Test
    void aTenantThatOwnsJobsCannotBeDeleted() {
        assertThat(admin.put("/v1/admin/tenants/" + name, body(name + ".*", "")).status()).isEqualTo(201);
        String jobs = "/v1/topics/" + name + ".orders/jobs";
        assertThat(admin.post(jobs, "{\"id\": \"j1\", \"delayMs\": 3600000, \"payload\": {}}").status())
                .isEqualTo(201);

        Answer refused = admin.delete("/v1/admin/tenants/" + name);
        assertThat(refused.status()).isEqualTo(409);
        assertThat(refused.detail()).contains("1 pending");
        assertThat(admin.get("/v1/admin/tenants/" + name).json().path("use").path("pendingJobs").asLong())
                .isEqualTo(1);

        assertThat(admin.delete(jobs + "/j1").status()).isIn(200, 204);
        assertThat(admin.delete("/v1/admin/tenants/" + name).status()).isEqualTo(204);
        assertThat(admin.get("/v1/admin/tenants/" + name).status()).isEqualTo(404);
        assertThat(admin.delete("/v1/admin/tenants/" + name).status()).isEqualTo(404);
    }

    @Test
    void changesAreAudited() {
        admin.put("/v1/admin/tenants/" + name, body(name + ".*", ", \"signingSecrets\": [{\"id\": \"s1\","
                + " \"secret\": \"audited-secret-0123456789\"}]"));
        admin.delete("/v1/admin/tenants/" + name);

        List<String> actions = new ArrayList<>();
        for (JsonNode entry : admin.get("/v1/admin/audit?limit=50").json().path("items")) {
            if (entry.path("target").asText().equals("tenant:" + name)) {
                actions.add(entry.path("action").asText());
                assertThat(entry.toString()).doesNotContain("audited-secret");
            }
        }
        assertThat(actions).containsExactlyInAnyOrder("tenant.create", "tenant.delete");
    }

    static void assertProblem(Answer answer, int status, String field) {
        assertThat(answer.status()).as(answer.toString()).isEqualTo(status);
        assertThat(answer.contentType()).startsWith("application/problem+json");
        assertThat(answer.json().path("fields").toString()).as(answer.toString()).contains("\"" + field + "\"");
    }
}
