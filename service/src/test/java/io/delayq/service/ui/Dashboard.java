package io.delayq.service.ui;

import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.WebDriverWait;

import java.time.Duration;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;

/** The dashboard as the browser tests see it: routes, sign-in and waits on elements found by data-testid. */
final class Dashboard {
    static final Duration WAIT = Duration.ofSeconds(25);

    private final WebDriver driver;
    private final String base;

    Dashboard(WebDriver driver, String base) {
        this.driver = driver;
        this.base = base;
    }

    WebDriver driver() {
        return driver;
    }

    /** Loads /ui/ afresh with an empty session, then signs in with {@code token} through the form. */
    void signIn(String token) {
        signedOut();
        driver.findElement(testId("token-input")).sendKeys(token);
        click("sign-in");
        await(d -> visible("whoami") && !d.findElement(testId("whoami")).getText().isBlank());
    }

    /** Loads /ui/ afresh with an empty session: the sign-in form. */
    void signedOut() {
        driver.get(base + "/ui/");
        script("window.sessionStorage.clear()");
        driver.navigate().refresh();
        await(d -> visible("token-input"));
    }

    /** Goes to a hash route ({@code /dead-letters}) within the loaded page, as a click on a link would. */
    void go(String route) {
        script("window.location.hash = arguments[0]", "#" + route);
    }

    /** Marks the loaded document; {@link #sameDocument()} says whether the page has been reloaded since. */
    void markDocument() {
        script("window.__delayqTestMark = 'not reloaded'");
    }

    boolean sameDocument() {
        return "not reloaded".equals(script("return window.__delayqTestMark || null"));
    }

    static By testId(String id) {
        return By.cssSelector("[data-testid='" + id + "']");
    }

    WebElement find(String testId) {
        return await(d -> d.findElement(testId(testId)));
    }

    /** Clicks the element with {@code testId}: see {@link #click(Supplier)}. */
    void click(String testId) {
        click(() -> driver.findElement(testId(testId)));
    }

    /**
     * Clicks what {@code locate} finds, finding it again when the page re-rendered it in between (a list re-drawn by
     * its refresh between a test's find and its click made the click fail, stale, on a loaded machine).
     */
    void click(Supplier<WebElement> locate) {
        await(d -> {
            locate.get().click();
            return true;
        });
    }

    List<WebElement> all(String testId) {
        return driver.findElements(testId(testId));
    }

    boolean visible(String testId) {
        List<WebElement> found = driver.findElements(testId(testId));
        return !found.isEmpty() && found.get(0).isDisplayed();
    }

    String text(String testId) {
        return find(testId).getText();
    }

    /** The text of {@code cell} in the overview's row of {@code topic}, or null while the row is not there. */
    String topicCell(String topic, String cell) {
        List<WebElement> rows = driver.findElements(By.cssSelector("tr[data-topic='" + topic + "']"));
        return rows.isEmpty() ? null : rows.get(0).findElement(testId(cell)).getText();
    }

    /** Waits until {@code condition} gives something other than null or false, failing after {@link #WAIT}. */
    <T> T await(Function<WebDriver, T> condition) {
        return new WebDriverWait(driver, WAIT).ignoring(org.openqa.selenium.NoSuchElementException.class)
                .ignoring(org.openqa.selenium.StaleElementReferenceException.class).until(condition::apply);
    }

    /** Waits until {@code condition}, with a message that says what did not happen. */
    void awaitThat(String what, Function<WebDriver, Boolean> condition) {
        new WebDriverWait(driver, WAIT).withMessage(() -> what + problemShown())
                .ignoring(org.openqa.selenium.NoSuchElementException.class)
                .ignoring(org.openqa.selenium.StaleElementReferenceException.class).until(condition::apply);
    }

    /** The error banner's text, for a failure message: a failed API call is usually why a page did not update. */
    private String problemShown() {
        try {
            return visible("error-banner") ? "; the dashboard's error banner says: " + text("error-text") : "; no error shown";
        } catch (RuntimeException e) {
            return "";
        }
    }

    Object script(String js, Object... args) {
        return ((JavascriptExecutor) driver).executeScript(js, args);
    }
}
