package io.delayq.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Everything one benchmark run measured: runs per table and implementation, lateness samples, notes and skips. */
public final class Results {

    /**
     * One repetition of one workload for one implementation.
     *
     * @param table    the table it belongs to (e.g. {@code W1})
     * @param impl     the implementation's label
     * @param rep      1-based repetition
     * @param metrics  numbers, by metric key
     * @param commands Redis commands it caused: name → {calls, usec}
     */
    public record Run(String table, String impl, int rep, Map<String, Double> metrics, Map<String, long[]> commands) {
    }

    private final List<Run> runs = new ArrayList<>();
    private final Map<String, Map<String, List<long[]>>> lateness = new LinkedHashMap<>();
    private final Map<String, List<String>> notes = new LinkedHashMap<>();
    private final Map<String, String> labels = new LinkedHashMap<>();
    private final Map<String, Object> environment = new LinkedHashMap<>();

    public synchronized void add(Run run) {
        runs.add(run);
    }

    public synchronized void addLateness(String table, String impl, long[] values) {
        lateness.computeIfAbsent(table, k -> new LinkedHashMap<>()).computeIfAbsent(impl, k -> new ArrayList<>()).add(values);
    }

    public synchronized void note(String table, String line) {
        notes.computeIfAbsent(table, k -> new ArrayList<>()).add(line);
    }

    /** A per-implementation text cell, e.g. the bulk path used. */
    public synchronized void label(String table, String impl, String key, String value) {
        labels.put(table + "|" + impl + "|" + key, value);
    }

    public synchronized String label(String table, String impl, String key) {
        return labels.get(table + "|" + impl + "|" + key);
    }

    public synchronized void env(String key, Object value) {
        environment.put(key, value);
    }

    public synchronized List<Run> runs() {
        return List.copyOf(runs);
    }

    public synchronized List<Run> runs(String table) {
        return runs.stream().filter(r -> r.table().equals(table)).toList();
    }

    /** Implementations with runs in a table, in the order they ran. */
    public synchronized List<String> impls(String table) {
        return runs.stream().filter(r -> r.table().equals(table)).map(Run::impl).distinct().toList();
    }

    public synchronized List<Double> values(String table, String impl, String metric) {
        return runs.stream().filter(r -> r.table().equals(table) && r.impl().equals(impl))
                .map(r -> r.metrics().get(metric)).filter(v -> v != null).toList();
    }

    public synchronized Map<String, List<long[]>> lateness(String table) {
        return lateness.getOrDefault(table, Map.of());
    }

    public synchronized List<String> notes(String table) {
        return notes.getOrDefault(table, List.of());
    }

    public synchronized Map<String, Object> environment() {
        return new LinkedHashMap<>(environment);
    }
}
