package io.delayq.service.ui;

import com.fasterxml.jackson.databind.JsonNode;
import io.delayq.core.testing.Await;
import io.delayq.core.testing.StoreFixtures;
import io.delayq.service.DelayqConfiguration;
import io.delayq.service.support.Api;
import io.delayq.service.support.Api.Answer;
import io.delayq.service.support.DirectStore;
import io.delayq.service.support.TestApps;
import io.delayq.testing.CallbackReceiver;
import io.delayq.testing.CallbackReceiver.Received;
import io.delayq.testing.CallbackReceiver.Reply;
import io.delayq.testing.RequiresProgram;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

import static io.delayq.service.ui.Dashboard.testId;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The dashboard at /ui/ in a real (headless) Chromium against the whole service on the test store, with jobs
 * delivered to a real HTTP receiver: signing in, live numbers, finding a dead letter by a payload field, replaying a
 * failure group in bulk, and a viewer who sees everything and can change nothing. The methods are ordered only so
 * that the screenshots of docs/dashboard.md show a history; each test makes its own topics and jobs.
 */
@Tag("slow") // a headless Chromium over the dashboard, with 6 s callbacks (CONTRIBUTING.md: the fast run leaves it out)
@ExtendWith(DropwizardExtensionsSupport.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@RequiresProgram(value = HeadlessChromium.CHROMIUM, debianPackage = "chromium")
@RequiresProgram(value = HeadlessChromium.CHROMEDRIVER, debianPackage = "chromium-driver")
class DashboardBrowserTest {
    static final DropwizardAppExtension<DelayqConfiguration> APP = TestApps.app();
    /** The viewer token of test-config.yml (role viewer only). */
    static final String VIEWER = "viewer-token";
    static final CallbackReceiver RECEIVER = new CallbackReceiver();
    /** The receiver answers 500 under /fail/, 200 after {@link #SLOW_MS} under /slow/, and under /flaky/ 500 while this is set. */
    static final AtomicBoolean FLAKY_FAILS = new AtomicBoolean(true);
    static final long SLOW_MS = 6_000;
    static final Screenshots SCREENSHOTS = Screenshots.fromEnvironment();

    @RegisterExtension
    static final HeadlessChromium.PerClass BROWSER = new HeadlessChromium.PerClass();

    private Dashboard ui;
    private Api admin;

    @BeforeAll
    static void answerAsTheTestsNeed() {
        RECEIVER.answer(r -> r.path().startsWith("/fail/") || r.path().startsWith("/flaky/") && FLAKY_FAILS.get()
                ? Reply.status(500)
                : r.path().startsWith("/slow/") ? new Reply(200, SLOW_MS, Map.of()) : Reply.ok());
    }

    @AfterAll
    static void stopReceiver() {
        RECEIVER.close();
    }

    @BeforeEach
    void setUp() {
        String base = "http://127.0.0.1:" + APP.getLocalPort();
        ui = new Dashboard(BROWSER.driver(), base);
        admin = new Api(base, TestApps.ADMIN);
    }

    @Test
    @Order(1)
    void signInWithATokenShowsWhoIsSignedInAndAnUnknownTokenShowsTheProblem() {
        ui.signedOut();
        ui.find("token-input").sendKeys("no-such-token");
        ui.click("sign-in");
        ui.awaitThat("the error banner for a refused token", d -> ui.visible("error-banner"));
        assertThat(ui.text("error-text")).as("the banner names the status").contains("401");
        assertThat(ui.visible("token-input")).as("still at the sign-in form").isTrue();
        assertThat(ui.script("return window.sessionStorage.getItem('delayq.token')")).as("a refused token is not kept").isNull();

        ui.signIn(TestApps.ADMIN);
        assertThat(ui.text("whoami")).contains("admin").contains("producer");
        assertThat(ui.visible("read-only-badge")).as("an admin is not read-only").isFalse();
        assertThat(ui.visible("error-banner")).as("the banner went with the successful sign-in").isFalse();
        assertThat(ui.script("return window.sessionStorage.getItem('delayq.token')")).isEqualTo(TestApps.ADMIN);
        assertThat(ui.script("return document.cookie")).as("no cookies").isEqualTo("");

        ui.click("sign-out");
        ui.awaitThat("the sign-in form after sign-out", d -> ui.visible("token-input"));
        assertThat(ui.script("return window.sessionStorage.getItem('delayq.token')")).as("sign-out forgets the token").isNull();
    }

    @Test
    @Order(2)
    void overviewNumbersFollowTheJobsWithoutAReloadAndPollingStopsWhileTheTabIsHidden() {
        String topic = topic("orders");
        ui.signIn(TestApps.ADMIN);
        ui.markDocument();
        for (int i = 1; i <= 3; i++) {
            schedule(topic, "soon-" + i, "{\"n\": " + i + "}", "/ok/" + topic, "\"delayMs\": 3000");
        }
        for (int i = 1; i <= 4; i++) { // jobs for the forecast, due in a few minutes
            schedule(topic, "later-" + i, "{\"n\": " + i + "}", "/ok/" + topic, "\"delayMs\": " + (i * 150_000));
        }
        ui.awaitThat("the overview shows 7 scheduled jobs of " + topic, d -> "7".equals(ui.topicCell(topic, "scheduled")));

        RECEIVER.await(r -> r.path().equals("/ok/" + topic), 3, Duration.ofSeconds(20));
        ui.awaitThat("the overview shows 3 succeeded and 4 scheduled",
                d -> "3".equals(ui.topicCell(topic, "succeeded")) && "4".equals(ui.topicCell(topic, "scheduled")));
        assertThat(ui.sameDocument()).as("numbers changed without a reload").isTrue();
        // the delivered/min sparkline (history, refetched at most every 15 s) comes to show the 3 deliveries
        ui.awaitThat("the delivered sparkline of " + topic + " shows deliveries", d -> {
            List<WebElement> sparks = d.findElements(By.cssSelector("tr[data-topic='" + topic + "'] svg.spark"));
            return sparks.size() == 2 && !sparks.get(0).getAttribute("aria-label").contains("highest 0");
        });

        // a hidden tab asks the API nothing; shown again, it polls again
        ui.script("window.__fetches = 0; const f = window.fetch; window.fetch = (...a) => { window.__fetches++; return f(...a); };"
                + "Object.defineProperty(document, 'hidden', {configurable: true, get: () => true});"
                + "document.dispatchEvent(new Event('visibilitychange'));");
        Await.sleep(1_000); // a refresh in flight when the tab was hidden may still finish
        long before = ((Number) ui.script("return window.__fetches")).longValue();
        Await.sleep(5_000);
        assertThat(((Number) ui.script("return window.__fetches")).longValue()).as("requests while hidden").isEqualTo(before);
        ui.script("Object.defineProperty(document, 'hidden', {configurable: true, get: () => false});"
                + "document.dispatchEvent(new Event('visibilitychange'));");
        ui.awaitThat("polling resumes when the tab is shown", d -> ((Number) ui.script("return window.__fetches")).longValue() > before);

        // the topic page: counters, charts, forecast, a lease in flight, pause and resume
        schedule(topic, "slow-1", "{\"slow\": true}", "/slow/" + topic, "\"delayMs\": 0");
        ui.click(() -> BROWSER.driver().findElement(By.cssSelector("tr[data-topic='" + topic + "'] a")));
        ui.awaitThat("the topic page of " + topic, d -> topic.equals(ui.text("topic-name")));
        ui.awaitThat("the lease of slow-1 in flight", d -> ui.all("lease-row").stream().anyMatch(r -> r.getText().contains("slow-1")));
        assertThat(ui.text("count-succeeded")).isEqualTo("3");
        assertThat(ui.find("history-chart").findElements(By.tagName("svg"))).as("history chart").hasSize(1);
        assertThat(ui.find("lateness-chart").findElements(By.tagName("svg"))).as("lateness chart").hasSize(1);
        ui.awaitThat("the forecast counts the 4 later jobs", d -> ui.text("forecast-total").startsWith("4 jobs due"));
        assertThat(ui.text("settings")).contains("paused").contains("false");
        SCREENSHOTS.take(BROWSER.driver(), "topic");

        ui.click("pause-toggle");
        ui.awaitThat("the paused badge", d -> ui.visible("paused-badge"));
        assertThat(admin.get("/v1/topics/" + topic).json().path("settings").path("paused").asBoolean()).as("paused over the API").isTrue();
        ui.awaitThat("the button offers resume", d -> ui.text("pause-toggle").equals("Resume"));
        ui.click("pause-toggle");
        ui.awaitThat("the paused badge gone", d -> !ui.visible("paused-badge"));
        assertThat(admin.get("/v1/topics/" + topic).json().path("settings").path("paused").asBoolean()).as("resumed over the API").isFalse();
        RECEIVER.await(r -> r.path().equals("/slow/" + topic), 1, Duration.ofSeconds(10));
    }

    @Test
    @Order(3)
    void aDeadLetterIsFoundByAPayloadFieldAndItsFailureGroupIsReplayedInBulk() {
        String topic = topic("payments");
        FLAKY_FAILS.set(true);
        for (int i = 1; i <= 4; i++) {
            String note = i == 3 ? "<img src=x onerror=window.__xss=1><b>bold</b>" : "order " + i;
            schedule(topic, "order-" + i, "{\"orderId\": " + (1000 + i) + ", \"note\": \"" + note + "\"}",
                    "/flaky/" + topic, "\"maxAttempts\": 1");
        }
        // a second failure group: nobody listens on port 1 (refused, or given up after 2 s where a network drops it)
        Answer refused = admin.post("/v1/topics/" + topic + "/jobs", "{\"id\": \"refused-1\", \"payload\": {\"orderId\": 2001},"
                + " \"callback\": {\"url\": \"http://127.0.0.1:1/hook\"}, \"maxAttempts\": 1, \"timeout\": \"2s\"}");
        assertThat(refused.status()).as(refused.toString()).isEqualTo(201);
        for (String id : List.of("order-1", "order-2", "order-3", "order-4", "refused-1")) {
            awaitState(topic, id, "DEAD");
        }

        ui.signIn(TestApps.ADMIN);
        ui.go("/dead-letters");
        ui.find("filter-topic").sendKeys(topic);
        ui.find("filter-payloadField").sendKeys("orderId");
        ui.find("filter-payloadValue").sendKeys("1003");
        ui.click("filter-apply");
        ui.awaitThat("exactly the dead letter with orderId 1003",
                d -> ui.all("letter-row").size() == 1 && "order-3".equals(ui.all("letter-id").get(0).getText()));
        ui.awaitThat("one failure group of one letter for that filter",
                d -> ui.all("group-row").size() == 1 && "1".equals(ui.all("group-count").get(0).getText()));

        // the job page of that dead letter: state, the attempt's error, the payload as text
        ui.click(() -> ui.all("letter-id").get(0).findElement(By.tagName("a")));
        ui.awaitThat("the job page of order-3", d -> "DEAD".equals(ui.text("job-state")));
        assertThat(ui.all("attempt-row")).hasSize(1);
        assertThat(ui.text("attempt-error")).contains("500");
        String payload = ui.text("job-payload");
        assertThat(payload).contains("\"orderId\": 1003").contains("<img src=x onerror=window.__xss=1><b>bold</b>");
        assertThat(ui.find("job-payload").findElements(By.cssSelector("*"))).as("markup in a payload stays text").isEmpty();
        assertThat(ui.script("return window.__xss === undefined")).isEqualTo(true);
        assertThat(ui.find("job-cancel").isEnabled()).as("a dead job cannot be cancelled").isFalse();
        SCREENSHOTS.take(BROWSER.driver(), "job");

        // the whole topic: two failure groups, the HTTP 500 one holding the four orders
        ui.go("/dead-letters?topic=" + topic);
        ui.awaitThat("two failure groups and five letters", d -> ui.all("group-row").size() == 2 && ui.all("letter-row").size() == 5);
        WebElement http500 = groupRow("500");
        assertThat(http500.findElement(testId("group-count")).getText()).isEqualTo("4");
        SCREENSHOTS.take(BROWSER.driver(), "dead-letters");

        FLAKY_FAILS.set(false);
        ui.markDocument();
        ui.click(() -> groupRow("500").findElement(testId("group-replay")));
        ui.awaitThat("the dry run's confirmation", d -> ui.visible("confirm-text"));
        assertThat(ui.text("confirm-text")).isEqualTo("4 letters match — replay them?");
        ui.click("confirm-yes");
        ui.awaitThat("the bulk replay reaches done",
                d -> "done".equals(ui.find("bulk-operation").getAttribute("data-state")));
        assertThat(ui.text("bulk-progress-text")).isEqualTo("4 / 4");
        assertThat(ui.sameDocument()).as("progress came without a reload").isTrue();
        String operation = ui.find("bulk-operation").getAttribute("data-operation");
        SCREENSHOTS.take(BROWSER.driver(), "bulk-operation");

        // the replayed jobs are delivered: the receiver, now answering 200, records a replay of each order
        List<Received> replays = RECEIVER.await(r -> r.path().equals("/flaky/" + topic) && r.id().contains(":r"), 4,
                Duration.ofSeconds(20));
        assertThat(replays).extracting(r -> r.id().substring(0, r.id().indexOf(':')))
                .containsExactlyInAnyOrder("order-1", "order-2", "order-3", "order-4");
        assertThat(RECEIVER.received(r -> r.path().equals("/hook"))).as("the other group was not replayed").isEmpty();

        ui.go("/operations");
        ui.awaitThat("the operation is listed as done", d -> BROWSER.driver().findElements(
                By.cssSelector("tr[data-operation='" + operation + "'][data-state='done']")).size() == 1);
        assertThat(BROWSER.driver().findElement(By.cssSelector("tr[data-operation='" + operation + "']")).getText())
                .contains("replay").contains("4 / 4");
        SCREENSHOTS.take(BROWSER.driver(), "operations");
    }

    @Test
    @Order(4)
    void aViewerSeesEveryPageButEveryActionIsRefused() {
        String topic = topic("billing");
        schedule(topic, "doomed", "{\"orderId\": 7}", "/fail/" + topic, "\"maxAttempts\": 1");
        schedule(topic, "waiting", "{\"orderId\": 8}", "/ok/" + topic, "\"delayMs\": 600000");
        awaitState(topic, "doomed", "DEAD");

        ui.signIn(VIEWER);
        assertThat(ui.text("whoami")).contains("viewer");
        assertThat(ui.visible("read-only-badge")).as("the read-only badge").isTrue();

        ui.awaitThat("the overview lists " + topic, d -> "1".equals(ui.topicCell(topic, "dead")));
        assertNoProblemShown("overview");
        ui.go("/topics/" + topic);
        ui.awaitThat("the topic page with its leases", d -> "1".equals(ui.text("count-scheduled"))
                && ui.find("leases").getText().contains("No job is leased"));
        assertThat(ui.find("pause-toggle").isEnabled()).as("pause for a viewer").isFalse();
        assertNoProblemShown("topic page");

        ui.go("/jobs/" + topic + "/waiting");
        ui.awaitThat("the job page", d -> "SCHEDULED".equals(ui.text("job-state")));
        assertThat(ui.find("job-cancel").isEnabled()).as("cancel for a viewer").isFalse();
        assertThat(ui.find("job-reschedule").isEnabled()).as("reschedule for a viewer").isFalse();
        assertNoProblemShown("job page");

        ui.go("/dead-letters?topic=" + topic);
        ui.awaitThat("the dead letter and its group", d -> ui.all("letter-row").size() == 1 && ui.all("group-row").size() == 1);
        for (String action : List.of("letter-replay", "letter-purge", "group-replay", "group-purge", "replay-filter", "purge-filter")) {
            assertThat(ui.all(action)).as(action).isNotEmpty()
                    .allSatisfy(b -> assertThat(b.isEnabled()).as(action + " enabled").isFalse());
        }
        assertThat(ui.all("group-show").get(0).isEnabled()).as("looking is allowed").isTrue();
        assertNoProblemShown("dead letters");

        ui.go("/operations");
        ui.awaitThat("the operations table", d -> !ui.find("operations").findElements(By.tagName("table")).isEmpty());
        assertNoProblemShown("operations");
        ui.go("/audit");
        ui.awaitThat("the audit table", d -> !ui.find("audit").findElements(By.tagName("table")).isEmpty());
        assertNoProblemShown("audit");

        Api viewer = admin.as(VIEWER);
        assertThat(viewer.get("/v1/me").json().path("roles").toString()).isEqualTo("[\"viewer\"]");
        String job = "/v1/topics/" + topic + "/jobs/waiting";
        Map<String, Answer> refused = Map.of(
                "PUT topic", viewer.put("/v1/topics/" + topic, "{\"paused\": true}"),
                "DELETE job", viewer.delete(job),
                "POST reschedule", viewer.post(job + "/reschedule", "{\"delayMs\": 1000}"),
                "POST replay", viewer.post("/v1/admin/dead-letters/" + topic + "/doomed/replay", "{}"),
                "DELETE dead letter", viewer.delete("/v1/admin/dead-letters/" + topic + "/doomed"),
                "POST bulk operation", viewer.post("/v1/admin/bulk-operations",
                        "{\"kind\": \"replay\", \"dryRun\": false, \"filter\": {\"topic\": \"" + topic + "\"}}"));
        refused.forEach((call, answer) -> assertThat(answer.status()).as("%s as a viewer: %s", call, answer).isEqualTo(403));
        assertThat(admin.get(job).json().path("state").asText()).as("nothing changed").isEqualTo("SCHEDULED");
        assertThat(admin.get("/v1/topics/" + topic).json().path("settings").path("paused").asBoolean()).isFalse();
    }

    @Test
    @Order(5)
    void theAuditPageShowsWhoChangedWhat() {
        String topic = topic("settings");
        assertThat(admin.put("/v1/topics/" + topic, "{\"paused\": true}").status()).isEqualTo(200);
        assertThat(admin.put("/v1/topics/" + topic, "{\"paused\": false}").status()).isEqualTo(200);

        ui.signIn(TestApps.ADMIN);
        ui.go("/audit");
        ui.awaitThat("the pause and the resume of " + topic + ", newest first", d -> ui.all("audit-row").stream()
                .filter(r -> r.findElement(testId("audit-target")).getText().equals(topic))
                .map(r -> r.getAttribute("data-action")).toList().equals(List.of("topic.resume", "topic.pause")));
        WebElement newest = ui.all("audit-row").stream()
                .filter(r -> r.findElement(testId("audit-target")).getText().equals(topic)).findFirst().orElseThrow();
        assertThat(newest.findElement(testId("audit-actor")).getText()).as("the token's name").isEqualTo("admin");
        SCREENSHOTS.take(BROWSER.driver(), "audit");

        ui.go("/"); // the overview, for docs/dashboard.md, once the earlier tests have left their topics
        ui.awaitThat("the overview", d -> !ui.text("updated").isEmpty());
        SCREENSHOTS.take(BROWSER.driver(), "overview");
    }

    /**
     * A dead letter stored under the id ".." (by an earlier version: the API refuses such names now) offers no
     * per-letter replay or purge and no job link: its URL would be /dead-letters/{topic}/../replay, which the BROWSER.driver()
     * folds into a bulk replay of every topic. The page's own URL builder refuses the name; the letter is reached
     * through the filters instead.
     */
    @Test
    @Order(6)
    void aLetterWithADotIdOffersNoPerLetterActionAndThePageBuildsNoUrlForIt() throws Exception {
        String topic = topic("legacy");
        try (DirectStore direct = DirectStore.of(APP)) {
            StoreFixtures.killJob(direct.store(), topic, "..", 1);
        }
        String bystander = topic("bystander");
        schedule(bystander, "doomed", "{\"n\": 1}", "/fail/" + bystander, "\"maxAttempts\": 1");
        awaitState(bystander, "doomed", "DEAD");
        Await.until("the dot letter is archived", () -> admin.get("/v1/admin/dead-letters?topic=" + topic)
                .json().path("items").size() == 1);

        ui.signIn(TestApps.ADMIN);
        ui.go("/dead-letters?topic=" + topic);
        ui.awaitThat("the letter '..'", d -> ui.all("letter-row").size() == 1);
        WebElement row = ui.all("letter-row").get(0);
        assertThat(row.getAttribute("data-id")).isEqualTo("..");
        for (String action : List.of("letter-replay", "letter-purge")) {
            assertThat(row.findElement(testId(action)).isEnabled()).as(action + " of '..'").isFalse();
        }
        assertThat(row.findElement(testId("letter-id")).findElements(By.tagName("a"))).as("no job link").isEmpty();
        assertThat(ui.all("replay-filter").get(0).isEnabled()).as("the filter's bulk actions reach it").isTrue();
        Object built = ui.script("return import('./js/api.js').then((api) => {"
                + " try { return api.path('v1', 'admin', 'dead-letters', arguments[0], '..', 'replay'); }"
                + " catch (e) { return 'refused: ' + e.message; } })", topic);
        assertThat(String.valueOf(built)).startsWith("refused: ").contains("only of dots");

        ui.go("/jobs/" + topic + "/..");
        ui.awaitThat("the job page says it cannot show such a name", d -> ui.visible("error-banner"));
        assertThat(ui.text("error-text")).contains("only of dots");
        assertThat(admin.get("/v1/admin/dead-letters/" + bystander + "/doomed").json().path("replayCount").asInt())
                .as("nothing was replayed").isZero();
    }

    /**
     * A payload value typed without its field is refused by the API wherever the page sends it (the list, the
     * groups, the dry run of a bulk action): the page shows the problem and no confirmation, and nothing is purged.
     */
    @Test
    @Order(7)
    void aPayloadValueWithoutItsFieldShowsTheProblemAndOffersNoPurge() {
        String topic = topic("halves");
        deadLetters(topic, "half-", 2);

        ui.signIn(TestApps.ADMIN);
        ui.go("/dead-letters");
        ui.find("filter-topic").sendKeys(topic);
        ui.find("filter-payloadValue").sendKeys("1");
        ui.click("filter-apply");
        ui.awaitThat("the list's refusal", d -> ui.visible("error-banner") && ui.text("error-text").contains("payloadField"));
        ui.click("purge-filter");
        Await.sleep(2_000); // the dry run's answer; the bulk panel closes again on a refusal
        assertThat(ui.all("confirm-yes")).as("no confirmation offered").isEmpty();
        assertThat(ui.visible("bulk-panel")).as("the bulk panel closed").isFalse();
        assertThat(admin.get("/v1/admin/dead-letters?topic=" + topic).json().path("items")).as("nothing purged").hasSize(2);
    }

    /**
     * The dashboard sends its dry run's count as {@code expectedCount}: a letter that dies while the confirmation is on
     * the screen makes the API refuse (409), the page shows why and asks again with the new count, and nothing is
     * purged until the operator confirms that.
     */
    @Test
    @Order(8)
    void aLetterDyingAfterTheConfirmationIsShownStopsThePurgeUntilConfirmedAgain() {
        String topic = topic("confirmed");
        deadLetters(topic, "c-", 2);

        ui.signIn(TestApps.ADMIN);
        ui.go("/dead-letters?topic=" + topic);
        ui.awaitThat("two letters", d -> ui.all("letter-row").size() == 2);
        ui.click("purge-filter");
        ui.awaitThat("the confirmation for 2", d -> ui.text("confirm-text").startsWith("2 letters match"));

        schedule(topic, "c-3", "{\"n\": 3}", "/fail/" + topic, "\"maxAttempts\": 1");
        awaitState(topic, "c-3", "DEAD");
        Await.until("the third letter archived", () -> admin.get("/v1/admin/dead-letters?topic=" + topic)
                .json().path("items").size() == 3);
        ui.click("confirm-yes");
        ui.awaitThat("the refusal and a new confirmation for 3", d -> ui.visible("error-banner")
                && ui.text("error-text").contains("409") && ui.text("confirm-text").startsWith("3 letters match"));
        assertThat(admin.get("/v1/admin/dead-letters?topic=" + topic).json().path("items")).as("nothing purged yet").hasSize(3);

        ui.click("confirm-yes");
        ui.awaitThat("the purge of 3 done", d -> "done".equals(ui.find("bulk-operation").getAttribute("data-state")));
        assertThat(ui.text("bulk-progress-text")).isEqualTo("3 / 3");
    }

    /** A job rescheduled and cancelled from the job page is in the audit log, with who did it. */
    @Test
    @Order(9)
    void aJobRescheduledAndCancelledFromTheDashboardIsAudited() {
        String topic = topic("audited");
        schedule(topic, "waiting", "{\"n\": 1}", "/ok/" + topic, "\"delayMs\": 600000");

        ui.signIn(TestApps.ADMIN);
        ui.go("/jobs/" + topic + "/waiting");
        ui.awaitThat("the job page", d -> "SCHEDULED".equals(ui.text("job-state")));
        ui.click("job-reschedule");
        ui.awaitThat("the reschedule is audited", d -> auditActions(topic + "/waiting").contains("job.reschedule"));
        ui.awaitThat("the job page again", d -> ui.find("job-cancel").isEnabled());
        ui.click("job-cancel");
        ui.awaitThat("the job is cancelled", d -> "CANCELLED".equals(ui.text("job-state")));
        ui.go("/audit");
        ui.awaitThat("the audit page lists the cancel", d -> ui.all("audit-row").stream()
                .anyMatch(r -> "job.cancel".equals(r.getAttribute("data-action"))
                        && r.findElement(testId("audit-target")).getText().equals(topic + "/waiting")));
    }

    private List<String> auditActions(String target) {
        List<String> actions = new java.util.ArrayList<>();
        admin.get("/v1/admin/audit?limit=200").json().path("items").forEach(e -> {
            if (e.path("target").asText().equals(target)) {
                actions.add(e.path("action").asText());
            }
        });
        return actions;
    }

    /** Header values are write-only: the job and topic pages show the header names with the values masked. */
    @Test
    @Order(10)
    void theJobAndTopicPagesShowHeaderNamesWithTheValuesMasked() {
        String topic = topic("masked");
        assertThat(admin.put("/v1/topics/" + topic, "{\"callback\": {\"url\": \"" + RECEIVER.url("/ok/" + topic)
                + "\", \"headers\": {\"X-Topic-Key\": \"topic-secret-9\"}}}").status()).isEqualTo(200);
        Answer created = admin.post("/v1/topics/" + topic + "/jobs", "{\"id\": \"secretive\", \"payload\": {},"
                + " \"delayMs\": 600000, \"callback\": {\"url\": \"" + RECEIVER.url("/ok/" + topic)
                + "\", \"headers\": {\"X-Job-Key\": \"job-secret-9\"}}}");
        assertThat(created.status()).as(created.toString()).isEqualTo(201);

        ui.signIn(TestApps.ADMIN);
        ui.go("/jobs/" + topic + "/secretive");
        ui.awaitThat("the job page", d -> "SCHEDULED".equals(ui.text("job-state")));
        assertThat(ui.text("job-callback")).contains("X-Job-Key: ********").doesNotContain("job-secret-9");
        ui.go("/topics/" + topic);
        ui.awaitThat("the topic's settings", d -> ui.text("settings").contains("X-Topic-Key"));
        assertThat(ui.text("settings")).contains("X-Topic-Key: ********").doesNotContain("topic-secret-9");
        assertThat(BROWSER.driver().getPageSource()).doesNotContain("secret-9");
    }

    /**
     * The dashboard works under its Content-Security-Policy (its own scripts and styles only): every page, a bulk
     * confirmation and a running operation render, and the BROWSER.driver() reports no violation.
     */
    @Test
    @Order(11)
    void everyPageWorksUnderTheContentSecurityPolicy() {
        String topic = topic("csp");
        schedule(topic, "doomed", "{\"n\": 1}", "/fail/" + topic, "\"maxAttempts\": 1");
        schedule(topic, "waiting", "{\"n\": 2}", "/ok/" + topic, "\"delayMs\": 600000");
        awaitState(topic, "doomed", "DEAD");

        ui.signIn(TestApps.ADMIN);
        ui.script("window.__csp = []; document.addEventListener('securitypolicyviolation',"
                + " (e) => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI + ' ' + e.sourceFile + ':' + e.lineNumber));");
        ui.awaitThat("the overview", d -> !ui.text("updated").isEmpty());
        ui.go("/topics/" + topic);
        ui.awaitThat("the topic page", d -> topic.equals(ui.text("topic-name")) && !ui.text("settings").isEmpty());
        ui.go("/jobs/" + topic + "/waiting");
        ui.awaitThat("the job page", d -> "SCHEDULED".equals(ui.text("job-state")));
        ui.go("/dead-letters?topic=" + topic);
        ui.awaitThat("the dead letter", d -> ui.all("letter-row").size() == 1);
        ui.click("replay-filter");
        ui.awaitThat("the confirmation", d -> ui.visible("confirm-text"));
        ui.click("confirm-yes");
        ui.awaitThat("the operation", d -> ui.visible("bulk-operation"));
        ui.go("/operations");
        ui.awaitThat("the operations", d -> !ui.all("operation-row").isEmpty());
        ui.go("/audit");
        ui.awaitThat("the audit log", d -> !ui.all("audit-row").isEmpty());
        assertThat(ui.script("return window.__csp")).as("CSP violations").asList().isEmpty();
        assertThat(ui.script("return getComputedStyle(document.querySelector('h1')).display")).as("the stylesheet applies")
                .isEqualTo("flex");
    }

    /**
     * The topic page's per-minute chart counts the pull lane's outcomes and shows, beside dead, its dead letters of
     * causes EXPIRED and NO_RETRY, each series with its total over the hour in the legend: a pull job acked
     * (delivered), one nacked with noRetry (failed, dead, noRetry) and one put back past its expiry (failed, dead,
     * expired).
     */
    @Test
    @Order(12)
    void theTopicPageCountsPullOutcomesAndShowsExpiredAndNoRetryBesideDead() {
        String topic = topic("pulled");
        String jobs = "/v1/topics/" + topic + "/jobs";
        for (String id : List.of("acked", "refused", "late")) {
            String expiry = id.equals("late") ? ", \"expiresAt\": \"" + Instant.now().plusSeconds(60) + "\"" : "";
            Answer created = admin.post(jobs, "{\"id\": \"" + id + "\", \"payload\": {}" + expiry + "}");
            assertThat(created.status()).as(created.toString()).isEqualTo(201);
        }
        Api consumer = admin.as(TestApps.CONSUMER);
        JsonNode leases = consumer.post("/v1/topics/" + topic + "/leases", "{\"max\": 3, \"waitMs\": 5000}").json()
                .path("leases");
        assertThat(leases).hasSize(3);
        for (JsonNode lease : leases) {
            String id = lease.path("id").asText();
            String token = "{\"leaseToken\": \"" + lease.path("leaseToken").asText() + "\"";
            Answer answer = switch (id) {
                case "acked" -> consumer.post(jobs + "/acked/ack", token + "}");
                case "refused" -> consumer.post(jobs + "/refused/nack", token + ", \"noRetry\": true}");
                default -> consumer.post(jobs + "/late/nack", token + ", \"delayMs\": 120000}"); // past its expiry
            };
            assertThat(answer.status()).as(id + ": " + answer).isEqualTo(204);
        }
        // the store's history first (flushed about once a second), so that the page's first read already has it
        Await.until("the history of " + topic + " counts the three", () -> {
            long delivered = 0;
            long dead = 0;
            for (JsonNode m : admin.get("/v1/topics/" + topic + "/history?minutes=60").json().path("minutes")) {
                delivered += m.path("delivered").asLong();
                dead += m.path("dead").asLong();
            }
            return delivered == 1 && dead == 2;
        });

        ui.signIn(TestApps.ADMIN);
        ui.go("/topics/" + topic);
        ui.awaitThat("the per-minute legend counts the pull outcomes", d -> "delivered 1".equals(ui.text("history-delivered")));
        assertThat(ui.text("history-failed")).isEqualTo("failed 2");
        assertThat(ui.text("history-dead")).isEqualTo("dead 2");
        assertThat(ui.text("history-expired")).isEqualTo("expired 1");
        assertThat(ui.text("history-noRetry")).isEqualTo("noRetry 1");
        WebElement chart = ui.find("history-chart");
        for (String series : List.of("delivered", "failed", "dead", "expired", "noRetry")) {
            assertThat(chart.findElements(By.cssSelector("svg [data-series='" + series + "']"))).as("the %s line", series)
                    .isNotEmpty();
        }
        assertThat(chart.findElement(By.tagName("svg")).getAttribute("aria-label")).contains("expired").contains("noRetry");
        assertNoProblemShown("topic page");
    }

    /** A fresh topic with a name that reads well on a screenshot: {@code orders-1b2c3d4e}. */
    private static String topic(String name) {
        return name + "-" + TestApps.topic().replaceAll("[^0-9a-f]", "").substring(0, 8);
    }

    /** The page's calls all succeeded: no error banner (a page's first calls have answered by the time it shows data). */
    private void assertNoProblemShown(String page) {
        assertThat(ui.visible("error-banner")).as("error banner on the %s: %s", page,
                ui.visible("error-banner") ? ui.text("error-text") : "").isFalse();
    }

    private WebElement groupRow(String kindContains) {
        return ui.all("group-row").stream()
                .filter(r -> r.findElement(testId("group-kind")).getText().contains(kindContains))
                // not found: a NoSuchElementException, which a wait (ui.click) retries while the list is re-drawn
                .findFirst().orElseThrow(() -> new org.openqa.selenium.NoSuchElementException(
                        "no failure group of kind *" + kindContains + "*"));
    }

    private void schedule(String topic, String id, String payload, String receiverPath, String extra) {
        Answer created = admin.post("/v1/topics/" + topic + "/jobs", "{\"id\": \"" + id + "\", \"payload\": " + payload
                + ", \"callback\": {\"url\": \"" + RECEIVER.url(receiverPath) + "\"}, " + extra + "}");
        assertThat(created.status()).as(created.toString()).isEqualTo(201);
    }

    /** {@code n} jobs {@code <prefix>1…n} ({"orderId": i}) killed by a failing callback, their letters archived. */
    private void deadLetters(String topic, String prefix, int n) {
        for (int i = 1; i <= n; i++) {
            schedule(topic, prefix + i, "{\"orderId\": " + i + "}", "/fail/" + topic, "\"maxAttempts\": 1");
            awaitState(topic, prefix + i, "DEAD");
        }
        Await.until(n + " letters of " + topic + " archived", () -> admin.get("/v1/admin/dead-letters?topic=" + topic)
                .json().path("items").size() == n);
    }

    private void awaitState(String topic, String id, String state) {
        String job = "/v1/topics/" + topic + "/jobs/" + id;
        Await.until(topic + "/" + id + " " + state, () -> state.equals(admin.get(job).json().path("state").asText()));
    }
}
