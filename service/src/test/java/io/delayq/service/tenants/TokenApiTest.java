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

import java.time.Instant;

import static io.delayq.service.tenants.TenantApiTest.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The token API on one instance: a token is shown once and works at once, lists never show values, names are unique
 * within a tenant, a tenant's admin makes its own tenant's tokens with no wider roles, revoked and expired tokens stop,
 * configured tokens are listed read-only, and it is all audited.
 */
@Tag("both-stores")
@ExtendWith(DropwizardExtensionsSupport.class)
class TokenApiTest {
    static final DropwizardAppExtension<DelayqConfiguration> APP = TenancyApps.app();

    private Api admin;
    private String tenant;

    @BeforeEach
    void setUp() {
        admin = TestApps.api(APP).as(TestApps.ADMIN);
        tenant = TenancyApps.tenantName();
        assertThat(admin.put("/v1/admin/tenants/" + tenant, "{\"topics\": [\"" + tenant + ".*\"]}").status())
                .isEqualTo(201);
    }

    private Answer create(Api as, String json) {
        return as.post("/v1/admin/tokens", json);
    }

    @Test
    void shownOnceWorksAtOnceAndListedWithoutItsValue() {
        Answer made = create(admin, "{\"name\": \"deployer\", \"tenant\": \"" + tenant + "\", \"roles\":"
                + " [\"producer\", \"viewer\"]}");

        assertThat(made.status()).as(made.toString()).isEqualTo(201);
        String value = made.json().path("token").asText();
        assertThat(value).startsWith("dq_").hasSizeGreaterThan(40);
        JsonNode me = admin.as(value).get("/v1/me").json();
        assertThat(me.path("name").asText()).isEqualTo(tenant + "/deployer");
        assertThat(me.path("tenant").asText()).isEqualTo(tenant);
        assertThat(me.path("roles").findValuesAsText("roles")).isEmpty();
        assertThat(me.path("roles").toString()).contains("producer", "viewer");
        assertThat(admin.get("/v1/me").json().has("tenant")).as("an operator has no tenant").isFalse();

        Answer list = admin.get("/v1/admin/tokens?tenant=" + tenant);
        assertThat(list.raw().body()).doesNotContain(value).doesNotContain("sha256");
        JsonNode listed = list.json().path("tokens").get(0);
        assertThat(listed.path("name").asText()).isEqualTo("deployer");
        assertThat(listed.path("active").asBoolean()).isTrue();
        assertThat(listed.has("lastUsedAt")).isTrue();
        assertThat(listed.path("lastUsedAt").isNull()).isFalse(); // used by /v1/me above
    }

    @Test
    void configuredTokensAreListedReadOnly() {
        JsonNode tokens = admin.get("/v1/admin/tokens").json().path("tokens");
        JsonNode cfg = null;
        for (JsonNode t : tokens) {
            if (t.path("name").asText().equals("cfgteam-producer")) {
                cfg = t;
            }
        }
        assertThat(cfg).isNotNull();
        assertThat(cfg.path("fromConfig").asBoolean()).isTrue();
        assertThat(cfg.path("tenant").asText()).isEqualTo("cfgteam");
        assertThat(tokens.toString()).doesNotContain("cfgteam-producer-token").doesNotContain("producer-token\"");

        Answer revoke = admin.delete("/v1/admin/tokens/cfgteam-producer?tenant=cfgteam");
        assertThat(revoke.status()).isEqualTo(409);
        assertThat(admin.as(TenancyApps.CFG_PRODUCER).get("/v1/me").status()).isEqualTo(200);
        assertThat(create(admin, "{\"name\": \"cfgteam-producer\", \"tenant\": \"cfgteam\", \"roles\":"
                + " [\"producer\"]}").status()).isEqualTo(409);
    }

    @Test
    void namesAreUniqueWithinATenant() {
        String json = "{\"name\": \"ci\", \"tenant\": \"" + tenant + "\", \"roles\": [\"producer\"]}";
        assertThat(create(admin, json).status()).isEqualTo(201);

        Answer again = create(admin, json);
        Answer operators = create(admin, "{\"name\": \"ci-" + tenant + "\", \"roles\": [\"viewer\"]}");

        assertThat(again.status()).isEqualTo(409);
        assertThat(again.contentType()).startsWith("application/problem+json");
        assertThat(operators.status()).as("the same name of another tenant (the operators') is another token")
                .isEqualTo(201);
        assertThat(operators.json().path("tenant").isNull()).isTrue();
    }

    @Test
    void revokedAndExpiredTokensStop() {
        String value = create(admin, "{\"name\": \"soon-gone\", \"tenant\": \"" + tenant + "\", \"roles\":"
                + " [\"producer\"]}").json().path("token").asText();
        assertThat(admin.as(value).get("/v1/me").status()).isEqualTo(200);

        Answer revoked = admin.delete("/v1/admin/tokens/soon-gone?tenant=" + tenant);

        assertThat(revoked.status()).as(revoked.toString()).isEqualTo(200);
        assertThat(revoked.json().path("revokedAt").isNull()).isFalse();
        assertThat(admin.as(value).get("/v1/me").status()).isEqualTo(401);
        assertThat(admin.delete("/v1/admin/tokens/never-made?tenant=" + tenant).status()).isEqualTo(404);

        String expiring = create(admin, "{\"name\": \"brief\", \"tenant\": \"" + tenant + "\", \"roles\":"
                + " [\"producer\"], \"expiresAt\": \"" + Instant.now().plusMillis(1500) + "\"}").json()
                .path("token").asText();
        assertThat(admin.as(expiring).get("/v1/me").status()).isEqualTo(200);
        sleep(2000);
        assertThat(admin.as(expiring).get("/v1/me").status()).isEqualTo(401);
    }

    @Test
    void aTenantsAdminManagesItsOwnTokensWithNoWiderRoles() {
        Api cfgAdmin = admin.as(TenancyApps.CFG_ADMIN); // roles producer, admin of cfgteam
        String name = "w" + TenancyApps.tenantName();

        Answer own = create(cfgAdmin, "{\"name\": \"" + name + "\", \"roles\": [\"producer\"]}");
        Answer wider = create(cfgAdmin, "{\"name\": \"" + name + "-c\", \"roles\": [\"consumer\"]}");
        Answer elsewhere = create(cfgAdmin, "{\"name\": \"" + name + "-x\", \"tenant\": \"" + tenant + "\","
                + " \"roles\": [\"producer\"]}");
        Answer operators = create(admin.as(own.json().path("token").asText()), "{\"name\": \"x\", \"roles\":"
                + " [\"producer\"]}");

        assertThat(own.status()).as(own.toString()).isEqualTo(201);
        assertThat(own.json().path("tenant").asText()).isEqualTo("cfgteam");
        assertThat(wider.status()).isEqualTo(403);
        assertThat(elsewhere.status()).isEqualTo(403);
        assertThat(operators.status()).as("a producer token makes no tokens").isEqualTo(403);
        JsonNode listed = cfgAdmin.get("/v1/admin/tokens").json().path("tokens");
        assertThat(listed.findValuesAsText("tenant")).containsOnly("cfgteam");
        assertThat(cfgAdmin.delete("/v1/admin/tokens/" + name + "?tenant=" + tenant).status()).isEqualTo(403);
        assertThat(cfgAdmin.delete("/v1/admin/tokens/" + name).status()).isEqualTo(200);
    }

    @Test
    void badInputIs400NamingTheField() {
        assertProblem(create(admin, "{\"roles\": [\"producer\"]}"), 400, "name");
        assertProblem(create(admin, "{\"name\": \"a\"}"), 400, "roles");
        assertProblem(create(admin, "{\"name\": \"a\", \"roles\": [\"root\"]}"), 400, "roles");
        assertProblem(create(admin, "{\"name\": \"...\", \"roles\": [\"producer\"]}"), 400, "name");
        assertProblem(create(admin, "{\"name\": \"a\", \"roles\": [\"producer\"], \"expiresAt\": \"soon\"}"), 400,
                "expiresAt");
        assertProblem(create(admin, "{\"name\": \"a\", \"roles\": [\"producer\"], \"expiresAt\":"
                + " \"2001-01-01T00:00:00Z\"}"), 400, "expiresAt");
        Answer noTenant = create(admin, "{\"name\": \"a\", \"tenant\": \"" + tenant + "x\", \"roles\":"
                + " [\"producer\"]}");
        assertThat(noTenant.status()).isEqualTo(404);
        assertThat(admin.get("/v1/admin/tokens?tenant=" + tenant).json().path("tokens").size()).isZero();
    }

    @Test
    void creatingAndRevokingAreAudited() {
        String value = create(admin, "{\"name\": \"audited\", \"tenant\": \"" + tenant + "\", \"roles\":"
                + " [\"producer\"]}").json().path("token").asText();
        admin.delete("/v1/admin/tokens/audited?tenant=" + tenant);

        String log = admin.get("/v1/admin/audit?limit=50").raw().body();
        assertThat(log).contains("token.create").contains("token.revoke").contains("token:" + tenant + "/audited")
                .doesNotContain(value);
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
