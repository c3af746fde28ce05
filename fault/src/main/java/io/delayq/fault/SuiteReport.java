package io.delayq.fault;

import java.util.List;
import java.util.Locale;

/** The suite's outcome: one row per scenario, the service's memory per scenario, and the verdict. */
record SuiteReport(String header, List<ScenarioResult> results, List<MemorySampler.Phase> memory) {

    /** Nothing acknowledged lost or early in any scenario, and every scenario ran to its end. */
    boolean passed() {
        return !results.isEmpty() && results.stream().allMatch(ScenarioResult::passed);
    }

    String text() {
        StringBuilder b = new StringBuilder(header).append("\n\n");
        b.append("| scenario | acknowledged | delivered | lost | duplicated | early | 5xx | recovery s | notes |\n");
        b.append("|---|--:|--:|--:|--:|--:|--:|--:|---|\n");
        for (ScenarioResult r : results) {
            Tally t = r.tally();
            if (t == null) {
                b.append("| ").append(r.name()).append(" | – | – | – | – | – | – | – | BROKE OFF: ").append(r.error())
                        .append(" |\n");
                continue;
            }
            b.append(String.format(Locale.ROOT, "| %s | %,d | %,d | %,d | %,d | %,d | %,d | %s | %s |%n", r.name(),
                    t.acknowledged(), t.reached(), t.lost(), t.duplicated(), t.early(), r.serverErrors(),
                    Double.isNaN(r.recoverySeconds()) ? "–" : String.format(Locale.ROOT, "%.1f", r.recoverySeconds()),
                    r.notes() + (r.error() == null ? "" : "; " + r.error())));
        }
        b.append("\nService JVM memory (MiB; RSS from /proc/<pid>/status, heap used from jvm.memory.heap.used):\n\n");
        b.append("| phase | RSS start | RSS peak | RSS end | heap start | heap peak | heap end | samples |\n");
        b.append("|---|--:|--:|--:|--:|--:|--:|--:|\n");
        for (MemorySampler.Phase p : memory) {
            b.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | %s | %s | %s | %d |%n", p.name(),
                    mib(p.start().rssBytes()), mib(p.peakRssBytes()), mib(p.end().rssBytes()),
                    mib(p.start().heapBytes()), mib(p.peakHeapBytes()), mib(p.end().heapBytes()), p.samples()));
        }
        b.append('\n');
        if (passed()) {
            b.append("PASSED: nothing acknowledged was lost or delivered early in any scenario.\n");
        } else {
            b.append("FAILED:\n");
            for (ScenarioResult r : results) {
                if (!r.passed()) {
                    b.append("  ").append(r.name()).append(": ").append(r.verdict()).append('\n');
                }
            }
            if (results.isEmpty()) {
                b.append("  no scenario ran\n");
            }
        }
        return b.toString();
    }

    private static String mib(long bytes) {
        return bytes < 0 ? "–" : String.format(Locale.ROOT, "%,d", bytes / (1024 * 1024));
    }
}
