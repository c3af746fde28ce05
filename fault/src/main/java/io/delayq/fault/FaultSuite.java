package io.delayq.fault;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * The fault suite of issue 12: drives the real service jar from the outside through {@code kill -9} of the service
 * and of Redis, an unreachable archive, a hanging receiver and a burst due at one instant, and prints what was
 * acknowledged, delivered, lost, duplicated, early, answered 5xx, how long recovery took, and the service JVM's
 * memory. Exits 1 when anything acknowledged was lost or ran early, or a scenario broke off.
 *
 * <pre>java -cp … io.delayq.fault.FaultSuite [--small | --full] [--only kill-service,…] [--service-jar PATH] …</pre>
 *
 * (fault/README.md: how to run it through Maven, every option, what each scenario checks.)
 */
public final class FaultSuite {
    private FaultSuite() {
    }

    public static void main(String[] args) throws Exception {
        SuiteOptions options;
        try {
            options = SuiteOptions.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        try {
            SuiteReport report = run(options, System.out);
            System.exit(report.passed() ? 0 : 1);
        } catch (Exception e) {
            System.err.println("the fault suite could not run: " + e.getMessage());
            e.printStackTrace();
            System.exit(1);
        }
    }

    static List<Scenario> scenarios(SuiteOptions o) {
        List<Scenario> all = List.of(new ServiceKillScenario(o), new RedisKillScenario(o), new ArchiveCutScenario(o),
                new HangingReceiverScenario(o), new SameInstantScenario(o));
        List<Scenario> chosen = new ArrayList<>();
        for (Scenario s : all) {
            if (o.runs(s.name())) {
                chosen.add(s);
            }
        }
        for (String name : o.only()) {
            if (all.stream().noneMatch(s -> s.name().equals(name))) {
                throw new IllegalArgumentException("no scenario '" + name + "'; the scenarios are "
                        + all.stream().map(Scenario::name).toList());
            }
        }
        return chosen;
    }

    /** Runs the chosen scenarios one after the other on one rig, printing progress and then the tables. */
    static SuiteReport run(SuiteOptions options, PrintStream out) throws Exception {
        List<Scenario> scenarios = scenarios(options);
        Path dir = Files.createTempDirectory("delayq-fault-");
        String header = header(options);
        out.println(header);
        out.println("run directory (service.log, Redis and archive data): " + dir);
        List<ScenarioResult> results = new ArrayList<>();
        List<MemorySampler.Phase> memory;
        try (FaultRig rig = FaultRig.start(dir, options)) {
            out.printf("service up in %.1f s%n", rig.lastStartMs() / 1000.0);
            MemorySampler sampler = new MemorySampler(rig.service, rig.api);
            try {
                for (Scenario s : scenarios) {
                    out.println("== " + s.name() + ": " + s.description());
                    sampler.phase(s.name());
                    long t0 = System.currentTimeMillis();
                    ScenarioResult r = runOne(rig, s);
                    results.add(r);
                    out.printf("   %s in %.0f s: %s%n", r.passed() ? "passed" : "FAILED",
                            (System.currentTimeMillis() - t0) / 1000.0, r.passed() ? r.notes() : r.verdict());
                }
            } finally {
                sampler.close();
            }
            memory = sampler.phases();
        }
        SuiteReport report = new SuiteReport(header, results, memory);
        out.println();
        out.print(report.text());
        if (options.report() != null) {
            Files.createDirectories(options.report().toAbsolutePath().getParent());
            Files.writeString(options.report(), report.text());
            out.println("report written to " + options.report().toAbsolutePath());
        }
        if (report.passed()) {
            deleteQuietly(dir); // on failure it stays, with the service's log, for whoever looks into it
        } else {
            out.println("run directory kept: " + dir);
        }
        return report;
    }

    /**
     * Runs a scenario; an exception becomes its row, and a service that died by itself (not by the suite's kills)
     * fails the scenario and is started again for the next one.
     */
    private static ScenarioResult runOne(FaultRig rig, Scenario s) throws IOException, InterruptedException {
        ScenarioResult r;
        try {
            r = s.run(rig);
        } catch (Exception e) {
            r = ScenarioResult.failed(s.name(), e);
        }
        if (!rig.service.isAlive()) {
            String exit = rig.service.exitDescription();
            rig.startService();
            return new ScenarioResult(r.name(), r.tally(), r.serverErrors(), r.recoverySeconds(), r.notes(),
                    "the service " + exit + " by itself (see service.log); restarted for the next scenario");
        }
        return r;
    }

    private static String header(SuiteOptions o) {
        Runtime rt = Runtime.getRuntime();
        return String.format(Locale.ROOT, "delayq fault suite, form: %s; %s%nmachine: %d cores (%s), %,d MiB RAM, %s %s;"
                        + " Java %s%nservice: %s, -Xmx%s, every delivery setting at its default; store: redis-server"
                        + " (bundled), appendonly yes, appendfsync always; archive: embedded MongoDB-wire server behind"
                        + " a cuttable TCP proxy%nearly = delivered more than %d ms before runAt; lost = acknowledged"
                        + " (201/200) and not delivered (or, for dying jobs, not archived) within %d s of the end of its"
                        + " fault or due time",
                o.form(), ZonedDateTime.now().format(DateTimeFormatter.RFC_1123_DATE_TIME), rt.availableProcessors(),
                cpuModel(), totalMemoryMib(), System.getProperty("os.name"), System.getProperty("os.version"),
                System.getProperty("java.version"), o.resolveServiceJar().getFileName(), o.serviceHeap(),
                o.earlyToleranceMs(), o.settleSeconds());
    }

    private static String cpuModel() {
        try (Stream<String> lines = Files.lines(Path.of("/proc/cpuinfo"))) {
            return lines.filter(l -> l.startsWith("model name")).map(l -> l.substring(l.indexOf(':') + 1).trim())
                    .findFirst().orElse("unknown CPU");
        } catch (IOException e) {
            return "unknown CPU";
        }
    }

    private static long totalMemoryMib() {
        try (Stream<String> lines = Files.lines(Path.of("/proc/meminfo"))) {
            return lines.filter(l -> l.startsWith("MemTotal:")).map(l -> Long.parseLong(l.replaceAll("[^0-9]", "")) / 1024)
                    .findFirst().orElse(-1L);
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
    }

    private static void deleteQuietly(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // a temporary directory left behind
        }
    }
}
