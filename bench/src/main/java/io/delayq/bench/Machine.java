package io.delayq.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Describes the machine a run happened on: date, nproc, CPU model, memory, JVM. */
public final class Machine {
    private Machine() {
    }

    public static void describe(Results results) {
        results.env("date", Instant.now().truncatedTo(ChronoUnit.SECONDS).toString());
        results.env("nproc", Runtime.getRuntime().availableProcessors());
        String model = run("sh", "-c", "lscpu | sed -n 's/^Model name:[ ]*//p' | head -1");
        results.env("cpu", model.isBlank() ? "?" : model.trim());
        String mem = run("sh", "-c", "free -g | awk '/^Mem:/ {print $2 \" GiB total, \" $7 \" GiB available\"}'");
        results.env("memory", mem.isBlank() ? "?" : mem.trim());
        results.env("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
        String load = run("cat", "/proc/loadavg");
        results.env("load average at start", load.isBlank() ? "?" : load.trim());
    }

    /** Output of a short command, or "" when it fails. */
    public static String run(String... cmd) {
        try {
            Process p = new ProcessBuilder(List.of(cmd)).redirectErrorStream(true).start();
            byte[] out = p.getInputStream().readAllBytes();
            p.waitFor(10, TimeUnit.SECONDS);
            return new String(out, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }
}
