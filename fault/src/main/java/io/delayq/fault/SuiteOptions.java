package io.delayq.fault;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The sizes of a run. {@link #small()} is the form {@code ./mvnw verify} runs (a couple of minutes on 2 cores);
 * {@link #full()} is the one issue 12 asks for (20 kills, a 60 s archive cut, 100,000 jobs at one instant). Every
 * size can be changed on the command line ({@link #parse}; the README lists the options).
 *
 * @param serviceKills      {@code kill -9}s of the service during push delivery
 * @param killJobs          jobs due across the kills (besides the trickle)
 * @param redisKills        {@code kill -9}s of Redis
 * @param redisDownSeconds  how long Redis stays down each time
 * @param redisJobs         jobs due across the Redis kills (besides the trickle)
 * @param archiveCutSeconds how long the archive is unreachable
 * @param dyingJobs         jobs that die (their callback answers 500, one attempt) during the cut
 * @param hangSeconds       how long the hanging receiver hangs
 * @param hangJobs          jobs to the hanging receiver
 * @param fastPerSecond     jobs per second due on the fast topic beside it
 * @param sameInstantJobs   jobs due at one instant
 * @param settleSeconds     how long after the last due time (or the end of a fault) an acknowledged job may take to
 *                          arrive before it counts as lost
 * @param earlyToleranceMs  a delivery this much before its runAt is not yet early (ms rounding of the clocks)
 * @param serviceHeap       the service JVM's {@code -Xmx}
 * @param only              scenario names to run (empty: all)
 * @param serviceJar        the shaded service jar
 * @param report            a file to write the tables to as well, or null
 * @param seed              of the random times of the kills
 */
record SuiteOptions(String form, int serviceKills, int killJobs, int redisKills, int redisDownSeconds, int redisJobs,
                    int archiveCutSeconds, int dyingJobs, int hangSeconds, int hangJobs, int fastPerSecond,
                    int sameInstantJobs, int settleSeconds, long earlyToleranceMs, String serviceHeap,
                    Set<String> only, Path serviceJar, Path report, long seed) {

    static SuiteOptions small() {
        return new SuiteOptions("small", 3, 2_000, 1, 3, 1_000, 10, 200, 10, 200, 100, 10_000, 60, 5, "512m",
                Set.of(), null, null, 12);
    }

    static SuiteOptions full() {
        return new SuiteOptions("full", 20, 20_000, 3, 10, 5_000, 60, 1_000, 30, 300, 200, 100_000, 60, 5, "512m",
                Set.of(), null, null, 12);
    }

    boolean runs(String scenario) {
        return only.isEmpty() || only.contains(scenario);
    }

    /** The options that take a value; see the README. */
    private static final Set<String> OPTIONS = Set.of("--service-kills", "--kill-jobs", "--redis-kills", "--redis-down-s",
            "--redis-jobs", "--archive-cut-s", "--dying-jobs", "--hang-s", "--hang-jobs", "--fast-per-s",
            "--same-instant-jobs", "--settle-s", "--early-tolerance-ms", "--service-heap", "--only", "--service-jar",
            "--report", "--seed");

    /** {@code --small} (the default) or {@code --full}, then any of {@link #OPTIONS} to change one size. */
    static SuiteOptions parse(String... args) {
        SuiteOptions b = List.of(args).contains("--full") ? full() : small();
        Map<String, String> given = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--full") || a.equals("--small")) {
                continue;
            }
            if (!OPTIONS.contains(a)) {
                throw new IllegalArgumentException("unknown option " + a + "; the options are --small, --full, "
                        + new TreeSet<>(OPTIONS) + " (see fault/README.md)");
            }
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException(a + " needs a value (see fault/README.md)");
            }
            given.put(a, args[++i]);
        }
        String only = given.get("--only");
        String jar = given.get("--service-jar");
        String report = given.get("--report");
        Map<String, String> sizes = new LinkedHashMap<>(given);
        sizes.remove("--report"); // where the tables go changes nothing measured
        return new SuiteOptions(b.form + (sizes.isEmpty() ? "" : ", changed: " + sizes),
                count(given, "--service-kills", b.serviceKills), count(given, "--kill-jobs", b.killJobs),
                count(given, "--redis-kills", b.redisKills), count(given, "--redis-down-s", b.redisDownSeconds),
                count(given, "--redis-jobs", b.redisJobs), count(given, "--archive-cut-s", b.archiveCutSeconds),
                count(given, "--dying-jobs", b.dyingJobs), count(given, "--hang-s", b.hangSeconds),
                count(given, "--hang-jobs", b.hangJobs), count(given, "--fast-per-s", b.fastPerSecond),
                count(given, "--same-instant-jobs", b.sameInstantJobs), count(given, "--settle-s", b.settleSeconds),
                count(given, "--early-tolerance-ms", (int) b.earlyToleranceMs),
                given.getOrDefault("--service-heap", b.serviceHeap),
                only == null ? b.only : new LinkedHashSet<>(List.of(only.split(","))),
                jar == null ? b.serviceJar : Path.of(jar), report == null ? b.report : Path.of(report),
                given.containsKey("--seed") ? Long.parseLong(given.get("--seed")) : b.seed);
    }

    private static int count(Map<String, String> given, String option, int otherwise) {
        String value = given.get(option);
        if (value == null) {
            return otherwise;
        }
        try {
            int n = Integer.parseInt(value);
            if (n >= 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw new IllegalArgumentException(option + " takes a whole number of 0 or more, not '" + value + "'");
    }

    /**
     * The jar to run: {@code --service-jar}, else the system property {@code delayq.service.jar} (the fault module's
     * pom sets it), else {@code service/target/delayq-service-*.jar} under the current directory or its parent.
     */
    Path resolveServiceJar() {
        if (serviceJar != null) {
            return requireJar(serviceJar);
        }
        String property = System.getProperty("delayq.service.jar");
        if (property != null && !property.isBlank()) {
            return requireJar(Path.of(property));
        }
        for (Path root : List.of(Path.of(""), Path.of(".."))) {
            Path target = root.resolve("service/target").toAbsolutePath().normalize();
            try (var files = Files.list(target)) {
                var found = files.filter(p -> p.getFileName().toString().matches("delayq-service-.*\\.jar")).findFirst();
                if (found.isPresent()) {
                    return found.get();
                }
            } catch (java.io.IOException e) {
                // not here
            }
        }
        throw new IllegalStateException("no service jar: build it with ./mvnw install -DskipTests (it is"
                + " service/target/delayq-service-<version>.jar), or pass --service-jar PATH");
    }

    private static Path requireJar(Path jar) {
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("the service jar " + jar.toAbsolutePath() + " does not exist: build it with"
                    + " ./mvnw install -DskipTests, or pass --service-jar PATH");
        }
        return jar.toAbsolutePath();
    }
}
