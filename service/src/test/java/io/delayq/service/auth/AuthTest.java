package io.delayq.service.auth;

import io.delayq.service.DelayqConfiguration;
import io.delayq.service.support.Api.Answer;
import io.delayq.service.support.Api;
import io.delayq.service.support.TestApps;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.assertj.core.api.Assertions.assertThat;

/** Bearer tokens and roles: 401 without or with an unknown token, 403 without the role; nothing stored. */
@ExtendWith(DropwizardExtensionsSupport.class)
class AuthTest {
    static final DropwizardAppExtension<DelayqConfiguration> APP = TestApps.app();

    private Api api;
    private String jobs;

    @BeforeEach
    void setUp() {
        api = TestApps.api(APP);
        jobs = "/v1/topics/" + TestApps.topic() + "/jobs";
    }

    @Test
    void missingTokenIs401WithChallenge() {
        Answer answer = api.as(null).post(jobs, "{\"id\":\"a\",\"payload\":{}}");

        assertThat(answer.status()).isEqualTo(401);
        assertThat(answer.header("WWW-Authenticate")).startsWith("Bearer");
        assertThat(answer.contentType()).startsWith("application/problem+json");
        assertThat(answer.detail()).contains("Authorization: Bearer");
        assertThat(api.get(jobs + "/a").status()).isEqualTo(404);
    }

    @Test
    void unknownTokenIs401() {
        assertThat(api.as("guess").get(jobs + "/a").status()).isEqualTo(401);
        assertThat(api.as("producer-token-and-more").get(jobs + "/a").status()).isEqualTo(401);
        var basic = api.as(null).send(api.as(null).request(jobs + "/a").header("Authorization", "Basic Zm9vOmJhcg=="));
        assertThat(basic.status()).isEqualTo(401);
    }

    @Test
    void wrongRoleIs403() {
        Answer answer = api.as(TestApps.CONSUMER).post(jobs, "{\"id\":\"a\",\"payload\":{}}");

        assertThat(answer.status()).isEqualTo(403);
        assertThat(answer.detail()).contains("consumer").contains("producer");
        assertThat(api.get(jobs + "/a").status()).isEqualTo(404);

        Answer put = api.put("/v1/topics/" + TestApps.topic(), "{\"paused\":true}");
        assertThat(put.status()).isEqualTo(403);
    }

    @Test
    void hashedTokensWorkAndRolesAllowTheirEndpoints() {
        assertThat(api.as(TestApps.CONSUMER).get("/v1/topics").status()).isEqualTo(200);
        assertThat(api.as(TestApps.ADMIN).post(jobs, "{\"id\":\"a\",\"payload\":{}}").status()).isEqualTo(201);
        assertThat(api.get(jobs + "/a").status()).isEqualTo(200);
    }

    @Test
    void theApiDescriptionNeedsNoToken() {
        assertThat(api.as(null).get("/openapi.yaml").status()).isEqualTo(200);
    }
}
