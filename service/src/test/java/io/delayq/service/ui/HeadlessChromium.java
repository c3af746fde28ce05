package io.delayq.service.ui;

import org.junit.jupiter.api.Assumptions;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Debian's headless Chromium driven through Debian's chromedriver (never a browser downloaded by Selenium Manager).
 * Without those two packages the browser tests are skipped, loudly: that is their only allowed skip.
 */
final class HeadlessChromium {
    static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    static final String MISSING = "install Debian packages chromium and chromium-driver"
            + " (apt-get install chromium chromium-driver) to run the dashboard's browser tests";

    private HeadlessChromium() {
    }

    /** A new headless browser, or a JUnit assumption failure when Chromium or chromedriver is not installed. */
    static ChromeDriver start() {
        boolean installed = Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER);
        if (!installed) {
            System.err.println("SKIPPED the dashboard's browser tests: " + MISSING);
        }
        Assumptions.assumeTrue(installed, MISSING);
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,1000");
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(new File(CHROMEDRIVER.toString()))
                .usingAnyFreePort()
                .build();
        ChromeDriver driver = new ChromeDriver(service, options);
        driver.manage().timeouts().scriptTimeout(Duration.ofSeconds(10));
        return driver;
    }
}
