package io.delayq.service.ui;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

import java.io.File;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Debian's headless Chromium driven through Debian's chromedriver (never a browser downloaded by Selenium Manager).
 * A test class using it carries {@code @RequiresProgram} for {@link #CHROMIUM} and {@link #CHROMEDRIVER}: without those
 * two packages each of its tests is reported as skipped, naming them, which is their only allowed skip.
 */
final class HeadlessChromium {
    static final String CHROMIUM = "/usr/bin/chromium";
    static final String CHROMEDRIVER = "/usr/bin/chromedriver";

    private HeadlessChromium() {
    }

    /** A new headless browser. */
    static ChromeDriver start() {
        ChromeOptions options = new ChromeOptions();
        options.setBinary(Path.of(CHROMIUM).toFile());
        options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,1000");
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(new File(CHROMEDRIVER))
                .usingAnyFreePort()
                .build();
        ChromeDriver driver = new ChromeDriver(service, options);
        driver.manage().timeouts().scriptTimeout(Duration.ofSeconds(10));
        return driver;
    }

    /**
     * One browser for a test class: started before its first test, quit after its last
     * ({@code @RegisterExtension static final HeadlessChromium.PerClass CHROMIUM = new HeadlessChromium.PerClass();}).
     * The class's {@code @RequiresProgram} conditions are evaluated first, so without Chromium nothing is started.
     */
    static final class PerClass implements BeforeAllCallback, AfterAllCallback {
        private ChromeDriver driver;

        @Override
        public void beforeAll(ExtensionContext context) {
            driver = start();
        }

        @Override
        public void afterAll(ExtensionContext context) {
            if (driver != null) {
                driver.quit();
                driver = null;
            }
        }

        ChromeDriver driver() {
            return driver;
        }
    }
}
