package io.delayq.service.auth;

import com.fasterxml.jackson.databind.JsonNode;
import io.delayq.service.DelayqApplication;
import io.delayq.service.DelayqConfiguration;
import io.delayq.service.support.Api;
import io.delayq.service.support.Api.Answer;
import io.delayq.service.support.DeadLetters;
import io.delayq.service.support.TestApps;
import io.dropwizard.testing.ResourceHelpers;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.net.http.HttpRequest;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * "View as tenant" on a running service: an operator's request with {@code Delayq-Tenant-View: alpha} sees what
 * alpha's own token sees — alpha's topics only, in lists, one-topic paths, dead letters, bulk operations and the
 * audit log — with its own roles, and nothing more; the header never widens a tenant's token, and a wrong one is a 400
 * problem that changes nothing.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
@Tag("both-stores")
class TenantViewTest {
    static final DropwizardAppExtension<DelayqConfiguration> APP = new DropwizardAppExtension<>(
            DelayqApplication.class, ResourceHelpers.resourceFilePath("tenants-test-config.yml"),
            TestApps.overrides());
    private static final String VIEW = Scope.VIEW_HEADER;

    private final String run = UUID.randomUUID().toString().substring(0, 8);
    private final String alphaTopic = "alpha.view-" + run;
    private final String betaTopic = "beta.view-" + run;
    private final String operatorsTopic = "t-view-" + run;
    private Api operator;

    @BeforeEach
    void jobsAndLettersInThreeWorlds() {
        operator = TestApps.api(APP).as(TestApps.ADMIN);
        for (String topic : new String[]{alphaTopic, betaTopic, operatorsTopic}) {
            Answer job = operator.post("/v1/topics/" + topic + "/jobs", "{\"id\":\"j\",\"delayMs\":3600000,"
                    + "\"payload\":{}}");
            assertThat(job.status()).as(job.toString()).isEqualTo(201);
            new DeadLetters(operator).kill(topic, "dead-" + run, "{}");
        }
    }

    @Test
    void anOperatorViewingATenantSeesThatTenantsTopicsOnly() {
        // lists: the view's topics only, where the operator without the header sees all three
        String topics = everyPage(TestApps.ADMIN, "alpha", "/v1/topics?limit=1000");
        assertThat(topics).contains(alphaTopic).doesNotContain(betaTopic, operatorsTopic);
        assertThat(everyPage(TestApps.ADMIN, null, "/v1/topics?limit=1000"))
                .contains(alphaTopic, betaTopic, operatorsTopic);

        // one topic's paths: another's topic answers as a topic nobody used, reads and writes alike
        assertThat(viewing("alpha", "GET", "/v1/topics/" + alphaTopic + "/jobs/j", null).status()).isEqualTo(200);
        Answer other = viewing("alpha", "GET", "/v1/topics/" + betaTopic + "/jobs/j", null);
        Answer nobody = viewing("alpha", "GET", "/v1/topics/gamma.never-" + run + "/jobs/j", null);
        assertThat(other.status()).isEqualTo(404);
        assertThat(other.raw().body().replace(betaTopic, "T"))
                .isEqualTo(nobody.raw().body().replace("gamma.never-" + run, "T"));
        Answer write = viewing("alpha", "POST", "/v1/topics/" + operatorsTopic + "/jobs",
                "{\"id\":\"planted\",\"payload\":{}}");
        assertThat(write.status()).as(write.toString()).isEqualTo(404);
        assertThat(operator.get("/v1/topics/" + operatorsTopic + "/jobs/planted").status()).isEqualTo(404);

        // dead letters: alpha's own; a filter on another's topic finds nothing
        String letters = viewing("alpha", "GET", "/v1/admin/dead-letters?limit=1000", null).raw().body();
        assertThat(letters).contains(alphaTopic).doesNotContain(betaTopic, operatorsTopic);
        assertThat(viewing("alpha", "GET", "/v1/admin/dead-letters?topic=" + betaTopic, null).json()
                .path("items").size()).isZero();

        // a bulk operation with an empty filter reaches alpha's letters only, and is alpha's operation
        Answer dry = viewing("alpha", "POST", "/v1/admin/bulk-operations",
                "{\"kind\":\"purge\",\"dryRun\":true,\"filter\":{\"idPrefix\":\"dead-" + run + "\"}}");
        assertThat(dry.json().path("matching").asLong()).as(dry.toString()).isEqualTo(1);
        Answer all = operator.post("/v1/admin/bulk-operations",
                "{\"kind\":\"purge\",\"dryRun\":true,\"filter\":{\"idPrefix\":\"dead-" + run + "\"}}");
        assertThat(all.json().path("matching").asLong()).as(all.toString()).isEqualTo(3);
        Answer started = viewing("alpha", "POST", "/v1/admin/bulk-operations",
                "{\"kind\":\"replay\",\"filter\":{\"topic\":\"" + alphaTopic + "\"}}");
        assertThat(started.status()).as(started.toString()).isEqualTo(202);
        assertThat(started.json().path("tenant").asText()).isEqualTo("alpha");
        String id = started.json().path("id").asText();
        new DeadLetters(operator).awaitFinished(id);
        assertThat(operator.as("alpha-viewer-token").get("/v1/admin/bulk-operations/" + id).status())
                .as("alpha sees the operation an operator ran in its view").isEqualTo(200);
        assertThat(viewing("beta", "GET", "/v1/admin/bulk-operations/" + id, null).status())
                .as("not in beta's view").isEqualTo(404);

        // the audit log: alpha's entries only (a cancel in each topic is an entry of it)
        for (String topic : new String[]{betaTopic, operatorsTopic}) {
            assertThat(operator.delete("/v1/topics/" + topic + "/jobs/j").status()).isIn(200, 204);
        }
        assertThat(operator.get("/v1/admin/audit?limit=500").raw().body()).contains(betaTopic, operatorsTopic);
        String audit = viewing("alpha", "GET", "/v1/admin/audit?limit=500", null).raw().body();
        assertThat(audit).contains(alphaTopic).doesNotContain(betaTopic, operatorsTopic);

        // who am I: the operator, viewing alpha
        JsonNode me = viewing("alpha", "GET", "/v1/me", null).json();
        assertThat(me.path("name").asText()).isEqualTo("admin");
        assertThat(me.has("tenant")).isFalse();
        assertThat(me.path("view").asText()).isEqualTo("alpha");
        assertThat(operator.get("/v1/me").json().has("view")).isFalse();
    }

    @Test
    void theHeaderNarrowsTopicsNotRolesAndManagingTenantsStaysTheOperators() {
        // an operators' viewer viewing alpha still may not write
        Answer viewerWrites = send("viewer-token", "alpha", "POST", "/v1/topics/" + alphaTopic + "/jobs",
                "{\"id\":\"v\",\"payload\":{}}");
        assertThat(viewerWrites.status()).as(viewerWrites.toString()).isEqualTo(403);
        assertThat(send("viewer-token", "alpha", "GET", "/v1/topics/" + alphaTopic, null).status()).isEqualTo(200);

        // tenants are still the operator's to list and change; the change is not alpha's audit entry
        String listed = viewing("alpha", "GET", "/v1/admin/tenants", null).raw().body();
        assertThat(listed).contains("\"alpha\"", "\"beta\"");
        String made = "v" + run;
        Answer created = viewing("alpha", "PUT", "/v1/admin/tenants/" + made, "{\"topics\":[\"" + made + ".*\"]}");
        assertThat(created.status()).as(created.toString()).isEqualTo(201);
        try {
            assertThat(operator.get("/v1/admin/audit?limit=500").raw().body()).contains("tenant:" + made);
            assertThat(operator.as("alpha-admin-token").get("/v1/admin/audit?limit=500").raw().body())
                    .as("an operator's change of another tenant, made while viewing alpha, is not alpha's")
                    .doesNotContain("tenant:" + made);
        } finally {
            assertThat(operator.delete("/v1/admin/tenants/" + made).status()).isIn(200, 204);
        }
    }

    @Test
    void itNeverWidensATenantsTokenAndAWrongOneIsA400ThatChangesNothing() {
        Answer unknown = viewing("nobody-" + run, "GET", "/v1/topics", null);
        assertThat(unknown.status()).isEqualTo(400);
        assertThat(unknown.contentType()).startsWith("application/problem+json");
        assertThat(unknown.detail()).contains("Delayq-Tenant-View", "nobody-" + run);

        // beta's token naming alpha, or a tenant that does not exist: the same refusal, nothing done
        Answer widen = send("beta-admin-token", "alpha", "POST", "/v1/topics/" + alphaTopic + "/jobs",
                "{\"id\":\"widened\",\"payload\":{}}");
        assertThat(widen.status()).isEqualTo(400);
        assertThat(widen.contentType()).startsWith("application/problem+json");
        assertThat(widen.detail()).contains("beta");
        assertThat(operator.get("/v1/topics/" + alphaTopic + "/jobs/widened").status()).isEqualTo(404);
        Answer none = send("beta-admin-token", "nobody-" + run, "GET", "/v1/topics", null);
        assertThat(none.status()).isEqualTo(400);
        assertThat(none.detail().replace("nobody-" + run, "X")).isEqualTo(widen.detail().replace("'alpha'", "'X'"));

        // naming its own tenant changes nothing
        Answer own = send("beta-viewer-token", "beta", "GET", "/v1/topics/" + betaTopic + "/jobs/j", null);
        assertThat(own.status()).isEqualTo(200);
        assertThat(send("beta-viewer-token", "beta", "GET", "/v1/topics/" + alphaTopic + "/jobs/j", null).status())
                .isEqualTo(404);
        assertThat(send("beta-viewer-token", "beta", "GET", "/v1/me", null).json().has("view")).isFalse();

        // an empty value is no header: the operator sees every topic
        assertThat(send(TestApps.ADMIN, "", "GET", "/v1/topics/" + betaTopic + "/jobs/j", null).status())
                .isEqualTo(200);
        // no token at all is still 401 first, header or not
        assertThat(send(null, "alpha", "GET", "/v1/topics", null).status()).isEqualTo(401);
    }

    private Answer viewing(String tenant, String method, String path, String body) {
        return send(TestApps.ADMIN, tenant, method, path, body);
    }

    private Answer send(String token, String view, String method, String path, String body) {
        HttpRequest.Builder request = operator.as(token).request(path);
        if (view != null) {
            request.header(VIEW, view);
        }
        if (body == null) {
            request.method(method, HttpRequest.BodyPublishers.noBody());
        } else {
            request.header("Content-Type", "application/json").method(method, HttpRequest.BodyPublishers.ofString(body));
        }
        return operator.send(request);
    }

    /** Every page of a listing paged by nextCursor (the shared test store holds other tests' topics). */
    private String everyPage(String token, String view, String path) {
        StringBuilder bodies = new StringBuilder();
        String cursor = null;
        for (int pages = 0; pages < 100; pages++) {
            Answer a = send(token, view, "GET", cursor == null ? path : path + "&cursor=" + cursor, null);
            assertThat(a.status()).as(a.toString()).isEqualTo(200);
            bodies.append(a.raw().body());
            JsonNode next = a.json().path("nextCursor");
            if (!next.isTextual()) {
                break;
            }
            cursor = next.asText();
        }
        return bodies.toString();
    }
}
