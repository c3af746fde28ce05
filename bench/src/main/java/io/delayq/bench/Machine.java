package io.delayq.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
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

    /**
     * Waits until the machine is quiet: the share of CPU time not idle, over one-second samples of {@code /proc/stat},
     * stays under 25 % for 3 samples in a row, for at most {@code maxSeconds}. Throughput through the service needs
     * both cores: a run that starts while something else still burns CPU (a peer's process winding down, autovacuum
     * of the previous workload's tables) measures that instead.
     *
     * @return {@code null} when quiet, else what was busy (the top processes by CPU), for the table's notes
     */
    public static String settle(int maxSeconds) {
        int quietSamples = 0;
        long[] before = cpuTicks();
        for (int s = 0; s < maxSeconds; s++) {
            try {
                Thread.sleep(1_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return "interrupted while waiting for a quiet machine";
            }
            long[] now = cpuTicks();
            long total = now[0] - before[0];
            long busy = total - (now[1] - before[1]);
            before = now;
            quietSamples = total > 0 && busy * 4 < total ? quietSamples + 1 : 0;
            if (quietSamples == 3) {
                return null;
            }
        }
        return "the machine was not quiet after " + maxSeconds + " s; busiest processes: "
                + run("sh", "-c", "ps -eo pcpu,comm --sort=-pcpu | sed -n '2,4p' | tr -s ' ' | paste -sd ';'").trim();
    }

    /** {total, idle + iowait} jiffies of all CPUs, from the first line of /proc/stat; zeros where it is unreadable. */
    private static long[] cpuTicks() {
        try {
            String[] f = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
            long total = 0;
            for (int i = 1; i < f.length; i++) {
                total += Long.parseLong(f[i]);
            }
            return new long[] {total, Long.parseLong(f[4]) + Long.parseLong(f[5])};
        } catch (IOException | RuntimeException e) {
            return new long[] {0, 0};
        }
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
