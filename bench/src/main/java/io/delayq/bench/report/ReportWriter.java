package io.delayq.bench.report;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.delayq.bench.Results;
import io.delayq.bench.Sizes;
import io.delayq.bench.Stats;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Writes results.md, results.json and the PNG charts into the output folder. */
public final class ReportWriter {
    private ReportWriter() {
    }

    /** What was written. */
    public record Written(Path markdown, Path json, List<Path> charts, String text) {
    }

    public static Written write(Results results, Sizes sizes, Path dir) throws IOException {
        Files.createDirectories(dir);
        StringBuilder md = new StringBuilder("## delayq benchmark results\n\n");
        results.environment().forEach((k, v) -> md.append("- ").append(k).append(": ").append(v).append('\n'));
        md.append("- columns: median (min–max) over ").append(sizes.reps())
                .append(" repetition(s); ↑ higher is better, ↓ lower is better; the **delayq ÷ best peer** row divides "
                        + "delayq's median by the best peer's median in that column\n\n");
        List<TableSpec> specs = Tables.specs(sizes);
        // The Redis part's tables and where its Redis time goes, then the PostgreSQL part's tables and targets.
        for (boolean postgres : new boolean[]{false, true}) {
            for (TableSpec spec : specs) {
                String t = spec.table().startsWith("PG-") == postgres ? Tables.render(spec, results) : null;
                if (t != null) {
                    md.append(t);
                }
            }
            if (!postgres) {
                for (String impl : new String[]{"delayq", "delayq-service"}) {
                    String split = Tables.redisSplit(results, impl);
                    if (split != null) {
                        md.append(split);
                    }
                }
            }
        }
        String targets = Tables.pgTargets(results);
        if (targets != null) {
            md.append(targets);
        }
        List<Path> charts = new ArrayList<>();
        add(charts, Charts.lateness(results, "W2", "W2 lateness distribution (pooled repetitions)", dir, "w2-lateness.png"));
        add(charts, Charts.throughput(results, "W1", "W1 enqueue throughput",
                List.of(new String[]{"jobs_per_s", "single add"}, new String[]{"bulk_jobs_per_s", "bulk path"}), dir,
                "w1-throughput.png"));
        add(charts, Charts.throughput(results, "W3", "W3 drain throughput",
                List.of(new String[]{"drain_jobs_per_s", "drain"}, new String[]{"e2e_jobs_per_s", "end to end"}), dir,
                "w3-throughput.png"));
        add(charts, Charts.lateness(results, "W4", "W4 lateness over HTTP", dir, "w4-lateness.png"));
        add(charts, Charts.lateness(results, "W6", "W6 lateness with kill -9 mid-run", dir, "w6-lateness.png"));
        add(charts, Charts.lateness(results, "PG-W2", "PostgreSQL W2 lateness distribution (pooled repetitions)", dir,
                "pg-w2-lateness.png"));
        add(charts, Charts.throughput(results, "PG-W1", "PostgreSQL W1 enqueue throughput",
                List.of(new String[]{"jobs_per_s", "single add"}, new String[]{"bulk_jobs_per_s", "bulk path"}), dir,
                "pg-w1-throughput.png"));
        add(charts, Charts.throughput(results, "PG-W3", "PostgreSQL W3 drain throughput",
                List.of(new String[]{"drain_jobs_per_s", "drain"}, new String[]{"e2e_jobs_per_s", "end to end"}), dir,
                "pg-w3-throughput.png"));
        add(charts, Charts.lateness(results, "PG-W4", "PostgreSQL W4 lateness over HTTP", dir, "pg-w4-lateness.png"));
        add(charts, Charts.lateness(results, "PG-CHURN", "PostgreSQL churn lateness", dir, "pg-churn-lateness.png"));
        if (!charts.isEmpty()) {
            md.append("### Charts\n\n");
            for (Path c : charts) {
                md.append("![").append(c.getFileName()).append("](").append(c.getFileName()).append(")\n\n");
            }
        }
        Path mdFile = dir.resolve("results.md");
        Files.writeString(mdFile, md.toString());
        Path jsonFile = dir.resolve("results.json");
        ObjectMapper om = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        om.writeValue(jsonFile.toFile(), json(results, specs));
        return new Written(mdFile, jsonFile, charts, md.toString());
    }

    private static void add(List<Path> charts, Path p) {
        if (p != null) {
            charts.add(p);
        }
    }

    private static Map<String, Object> json(Results results, List<TableSpec> specs) {
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("environment", results.environment());
        Map<String, Object> summary = new LinkedHashMap<>();
        for (TableSpec spec : specs) {
            Map<String, Object> perImpl = new LinkedHashMap<>();
            for (String impl : results.impls(spec.table())) {
                Map<String, Object> metrics = new LinkedHashMap<>();
                results.runs(spec.table()).stream().filter(r -> r.impl().equals(impl)).flatMap(r -> r.metrics().keySet().stream())
                        .distinct().forEach(k -> {
                            Stats.Summary s = Stats.Summary.of(results.values(spec.table(), impl, k));
                            metrics.put(k, Map.of("median", s.median(), "min", s.min(), "max", s.max(), "n", s.n()));
                        });
                perImpl.put(impl, metrics);
            }
            if (!perImpl.isEmpty()) {
                summary.put(spec.table(), perImpl);
            }
            if (!results.notes(spec.table()).isEmpty()) {
                summary.put(spec.table() + "_notes", results.notes(spec.table()));
            }
        }
        root.put("summary", summary);
        List<Object> runs = new ArrayList<>();
        for (Results.Run r : results.runs()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("table", r.table());
            m.put("impl", r.impl());
            m.put("rep", r.rep());
            m.put("metrics", r.metrics());
            Map<String, Object> cmds = new LinkedHashMap<>();
            r.commands().forEach((k, v) -> cmds.put(k, Map.of("calls", v[0], "usec", v[1])));
            m.put("redis_commands", cmds);
            runs.add(m);
        }
        root.put("runs", runs);
        return root;
    }
}
