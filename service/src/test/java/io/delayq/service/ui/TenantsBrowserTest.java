package io.delayq.service.ui;

import io.delayq.service.DelayqApplication;
import io.delayq.service.DelayqConfiguration;
import io.delayq.service.support.Api;
import io.delayq.service.support.Api.Answer;
import io.delayq.service.support.TestApps;
import io.delayq.testing.RequiresProgram;
import io.dropwizard.testing.ResourceHelpers;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.extension.ExtendWith;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.Select;

import java.util.List;

import static io.delayq.service.ui.Dashboard.testId;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The tenants page and the header's tenant part in a real (headless) Chromium, on tenancy-test-config.yml (tenant
 * {@code cfgteam}, topics {@code cfgteam.*}, weight 2, maxPayloadBytes 200, a signing secret): an operator sees the
 * tenants with their quotas, use and weight and never a secret; picking a tenant sends {@code Delayq-Tenant-View} on
 * every call and narrows the overview to its topics; a tenant's token gets no picker and no tenants page but its own
 * use in the header.
 */
@Tag("slow") // a headless Chromium over the dashboard
@ExtendWith(DropwizardExtensionsSupport.class)
@RequiresProgram(value = HeadlessChromium.CHROMIUM, debianPackage = "chromium")
@RequiresProgram(value = HeadlessChromium.CHROMEDRIVER, debianPackage = "chromium-driver")
class TenantsBrowserTest {
    static final DropwizardAppExtension<DelayqConfiguration> APP = new DropwizardAppExtension<>(
            DelayqApplication.class, ResourceHelpers.resourceFilePath("tenancy-test-config.yml"), TestApps.overrides());
    static final String TENANT = "cfgteam";
    static final String TENANT_ADMIN = "cfgteam-admin-token";
    static final String TENANT_PRODUCER = "cfgteam-producer-token";
    /** The signing secret's value in tenancy-test-config.yml: never on any page. */
    static final String SECRET = "cfgteam-secret-0123456789";
    @RegisterExtension
    static final HeadlessChromium.PerClass BROWSER = new HeadlessChromium.PerClass();

    private Dashboard ui;
    private String tenantTopic;
    private String operatorTopic;



    @BeforeEach
    void setUp() {
        String base = "http://127.0.0.1:" + APP.getLocalPort();
        ui = new Dashboard(BROWSER.driver(), base);
        tenantTopic = TENANT + "." + TestApps.topic();
        operatorTopic = TestApps.topic();
        schedule(new Api(base, TENANT_PRODUCER), tenantTopic);
        schedule(new Api(base, TestApps.PRODUCER), operatorTopic);
    }

    @Test
    void anOperatorSeesTheTenantsQuotasUseAndWeightButNoSecret() {
        ui.signIn(TestApps.ADMIN);
        assertThat(ui.visible("nav-tenants")).isTrue();
        assertThat(ui.visible("tenant-picker")).as("an operator's admin picks a tenant").isTrue();
        ui.go("/tenants");
        By row = By.cssSelector("tr[data-tenant='" + TENANT + "']");
        ui.awaitThat("the row of " + TENANT, d -> !d.findElements(row).isEmpty());
        WebElement tenant = BROWSER.driver().findElement(row);
        assertThat(tenant.findElement(testId("tenant-topics")).getText()).isEqualTo("cfgteam.*");
        assertThat(tenant.findElement(testId("tenant-weight")).getText()).isEqualTo("2");
        assertThat(tenant.findElement(testId("tenant-quotas")).getText()).isEqualTo("maxPayloadBytes 200");
        assertThat(tenant.findElement(testId("tenant-use")).getText()).matches("\\d+ topics? · \\d+ pending jobs?")
                .doesNotStartWith("0 ");
        assertThat(tenant.findElement(testId("tenant-secrets")).getText()).isEqualTo("ids 2026-11");
        assertThat(BROWSER.driver().getPageSource()).as("a secret's value is never shown").doesNotContain(SECRET);

        // an operator's viewer may not list tenants: no picker, no page in the menu
        ui.signIn("viewer-token");
        assertThat(ui.visible("nav-tenants")).isFalse();
        assertThat(ui.all("tenant-picker")).isEmpty();
    }

    @Test
    void aTenantsTokenSeesItsOwnUseAndNoPicker() {
        ui.signIn(TENANT_ADMIN);
        ui.awaitThat("the tenant's use in the header", d -> ui.visible("tenant-use"));
        assertThat(ui.text("tenant-use")).startsWith(TENANT + ": ").containsPattern("[1-9]\\d* topics?");
        assertThat(ui.text("whoami")).contains("tenant " + TENANT);
        assertThat(ui.visible("nav-tenants")).isFalse();
        assertThat(ui.all("tenant-picker")).isEmpty();
        ui.awaitThat("its own topic in the overview", d -> ui.topicCell(tenantTopic, "scheduled") != null);
        assertThat(ui.topicCell(operatorTopic, "scheduled")).as("the operators' topic is not its").isNull();

        // a tenant's producer may not read its tenant: its name only
        ui.signIn(TENANT_PRODUCER);
        assertThat(ui.text("whoami")).contains("tenant " + TENANT);
        assertThat(ui.all("tenant-use")).isEmpty();
        assertThat(ui.all("tenant-picker")).isEmpty();
    }

    /**
     * Needs the server side of {@code Delayq-Tenant-View} (another branch): without it the API ignores the header and
     * the last check, the overview narrowed to the tenant's topics, fails.
     */
    @Test
    void pickingATenantShowsThatTenantsWorldOnlyUntilAllIsPicked() {
        ui.signIn(TestApps.ADMIN);
        ui.awaitThat("both topics in the overview", d -> ui.topicCell(tenantTopic, "scheduled") != null
                && ui.topicCell(operatorTopic, "scheduled") != null);
        // what each call sends while a tenant is picked (a poll that began before the pick is not counted)
        ui.script("window.__views = []; const f = window.fetch; window.fetch = (url, init) => {"
                + " if (window.sessionStorage.getItem('delayq.tenantView')) window.__views.push("
                + "(init && init.headers && init.headers['Delayq-Tenant-View']) || null);"
                + " return f(url, init); };");

        new Select(ui.find("tenant-picker")).selectByValue(TENANT);
        ui.awaitThat("the header says whose world this is", d -> ui.visible("viewing-as"));
        assertThat(ui.text("viewing-as")).isEqualTo("viewing as " + TENANT);
        assertThat(ui.script("return window.sessionStorage.getItem('delayq.tenantView')")).isEqualTo(TENANT);
        ui.awaitThat("a few calls made", d -> ((List<?>) ui.script("return window.__views")).size() >= 3);
        assertThat((List<?>) ui.script("return window.__views")).as("every call names the tenant")
                .allSatisfy(view -> assertThat(view).isEqualTo(TENANT));

        ui.awaitThat("the overview shows " + TENANT + "'s topics only", d -> ui.topicCell(tenantTopic, "scheduled") != null
                && ui.topicCell(operatorTopic, "scheduled") == null);

        ui.click("view-all");
        ui.awaitThat("every topic again", d -> ui.topicCell(tenantTopic, "scheduled") != null
                && ui.topicCell(operatorTopic, "scheduled") != null);
        assertThat(ui.visible("viewing-as")).isFalse();
        assertThat(ui.script("return window.sessionStorage.getItem('delayq.tenantView')")).isNull();
    }

    private static void schedule(Api producer, String topic) {
        Answer job = producer.post("/v1/topics/" + topic + "/jobs", "{\"payload\": {}, \"delayMs\": 3600000}");
        assertThat(job.status()).as(job.toString()).isEqualTo(201);
    }
}
