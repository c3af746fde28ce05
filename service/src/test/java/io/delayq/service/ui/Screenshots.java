package io.delayq.service.ui;

import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The screenshots of docs/dashboard.md. Written only when {@code -Ddelayq.screenshots=<dir>} or
 * {@code DELAYQ_SCREENSHOTS=<dir>} is set (a relative directory is taken from the repository root, e.g.
 * {@code DELAYQ_SCREENSHOTS=docs/screenshots}), so an ordinary test run leaves the working tree alone.
 */
final class Screenshots {
    private final Path dir;

    private Screenshots(Path dir) {
        this.dir = dir;
    }

    static Screenshots fromEnvironment() {
        String value = System.getProperty("delayq.screenshots", System.getenv("DELAYQ_SCREENSHOTS"));
        if (value == null || value.isBlank()) {
            return new Screenshots(null);
        }
        Path dir = Path.of(value);
        return new Screenshots(dir.isAbsolute() ? dir : repositoryRoot().resolve(dir));
    }

    /** Saves the browser's viewport as {@code <page>.png}; does nothing unless a directory is configured. */
    void take(WebDriver driver, String page) {
        if (dir == null) {
            return;
        }
        try {
            Files.createDirectories(dir);
            Files.write(dir.resolve(page + ".png"), ((TakesScreenshot) driver).getScreenshotAs(OutputType.BYTES));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the screenshot " + page + " into " + dir, e);
        }
    }

    /** The nearest directory up from the working directory (the module's, under Maven) that holds mvnw. */
    private static Path repositoryRoot() {
        Path dir = Path.of("").toAbsolutePath();
        for (Path d = dir; d != null; d = d.getParent()) {
            if (Files.exists(d.resolve("mvnw"))) {
                return d;
            }
        }
        return dir;
    }
}
