package io.delayq.service.ui;

import io.delayq.service.DelayqConfiguration;
import io.delayq.service.support.Api;
import io.delayq.service.support.Api.Answer;
import io.delayq.service.support.TestApps;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Instant;
import java.time.temporal.ChronoUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The topic's Jobs tab (issue 29) in a real headless Chromium: the listing page by page, a payload filter, and a bulk
 * cancel of exactly what the filter matches, with its dry run's confirmation first.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class TopicJobsBrowserTest {
    static final DropwizardAppExtension<DelayqConfiguration> APP = TestApps.app();
    @RegisterExtension
    static final HeadlessChromium.PerClass BROWSER = new HeadlessChromium.PerClass();

    private Dashboard ui;
    private Api admin;



    @BeforeEach
    void setUp() {
        String base = "http://127.0.0.1:" + APP.getLocalPort();
        ui = new Dashboard(BROWSER.driver(), base);
        admin = new Api(base, TestApps.ADMIN);
    }

    @Test
    void aTopicsJobsArePagedFilteredByPayloadAndCancelledInBulkAfterTheDryRun() {
        String topic = TestApps.topic();
        Instant base = Instant.now().plus(1, ChronoUnit.DAYS);
        for (int i = 0; i < 30; i++) {
            Answer created = admin.post("/v1/topics/" + topic + "/jobs", "{\"id\": \"job-" + (100 + i) + "\","
                    + " \"runAt\": \"" + base.plusSeconds(i) + "\", \"payload\": {\"batch\": \""
                    + (i % 3 == 0 ? "wrong" : "right") + "\"}}");
            assertThat(created.status()).as(created.toString()).isEqualTo(201);
        }

        ui.signIn(TestApps.ADMIN);
        ui.go("/topics/" + topic);
        ui.awaitThat("the topic page's Jobs link", d -> ui.visible("topic-jobs-link"));
        ui.click("topic-jobs-link");
        ui.awaitThat("the first page of 25 jobs, in due order", d -> ui.all("job-row").size() == 25);
        assertThat(ui.all("job-row").get(0).getAttribute("data-id")).isEqualTo("job-100");
        ui.click("page-next");
        ui.awaitThat("the second page of 5", d -> ui.all("job-row").size() == 5
                && "job-125".equals(ui.all("job-row").get(0).getAttribute("data-id")));

        ui.find("filter-payloadField").sendKeys("batch");
        ui.find("filter-payloadValue").sendKeys("wrong");
        ui.click("filter-apply");
        ui.awaitThat("the 10 wrong ones", d -> ui.all("job-row").size() == 10);

        ui.markDocument();
        ui.click("bulk-cancel-jobs");
        ui.awaitThat("the dry run's confirmation", d -> ui.visible("confirm-text"));
        assertThat(ui.text("confirm-text")).isEqualTo("10 jobs match — cancel them?");
        ui.click("confirm-yes");
        ui.awaitThat("the bulk cancel reaches done",
                d -> "done".equals(ui.find("bulk-operation").getAttribute("data-state")));
        assertThat(ui.text("bulk-progress-text")).isEqualTo("10 / 10");
        assertThat(ui.sameDocument()).as("progress came without a reload").isTrue();
        ui.awaitThat("the cancelled jobs leave the pending listing", d -> ui.all("job-row").isEmpty());

        for (int i = 0; i < 30; i++) {
            String state = admin.get("/v1/topics/" + topic + "/jobs/job-" + (100 + i)).json().path("state").asText();
            assertThat(state).as("job-" + (100 + i)).isEqualTo(i % 3 == 0 ? "CANCELLED" : "SCHEDULED");
        }
        assertThat(ui.visible("error-banner")).isFalse();
    }
}
