package io.delayq.fault;

import com.fasterxml.jackson.databind.JsonNode;
import io.delayq.testing.ServiceProcess;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The service JVM's memory across the run, once a second: resident set size from {@code /proc/<pid>/status}
 * ({@code VmRSS}, what the machine pays) and heap in use from the admin port's {@code jvm.memory.heap.used} gauge
 * (what the service holds). Samples are filed under the scenario running at the time; a restarted JVM (the kill
 * scenario) starts small again, which the figures show as they are.
 */
final class MemorySampler implements AutoCloseable {
    /** One sample; heap is -1 when the admin port did not answer. */
    record Sample(long atMs, long pid, long rssBytes, long heapBytes) {
    }

    /** Start, peak and end of a phase. */
    record Phase(String name, Sample start, long peakRssBytes, long peakHeapBytes, Sample end, int samples) {
    }

    private final ServiceProcess service;
    private final ServiceApi api;
    private final Map<String, List<Sample>> byPhase = new LinkedHashMap<>();
    private final Thread thread;
    private volatile String phase = "start";
    private volatile boolean running = true;

    MemorySampler(ServiceProcess service, ServiceApi api) {
        this.service = service;
        this.api = api;
        this.thread = new Thread(this::run, "fault-memory");
        thread.setDaemon(true);
        thread.start();
    }

    /** Files the following samples under {@code name}, starting with one taken now. */
    void phase(String name) {
        phase = name;
        sample();
    }

    private void run() {
        while (running) {
            sample();
            try {
                Thread.sleep(1_000);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private void sample() {
        long pid = service.pid();
        if (pid < 0) {
            return; // between a kill and the next start
        }
        long rss = rssBytes(pid);
        JsonNode metrics = api.metrics();
        long heap = metrics == null ? -1 : metrics.path("gauges").path("jvm.memory.heap.used").path("value").asLong(-1);
        if (rss < 0) {
            return;
        }
        Sample s = new Sample(System.currentTimeMillis(), pid, rss, heap);
        synchronized (byPhase) {
            byPhase.computeIfAbsent(phase, k -> new ArrayList<>()).add(s);
        }
    }

    static long rssBytes(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        } catch (IOException | NumberFormatException e) {
            // the process is gone, or not Linux
        }
        return -1;
    }

    /** Each phase's figures, in order, then the whole run ({@code all}). */
    List<Phase> phases() {
        List<Phase> phases = new ArrayList<>();
        List<Sample> all = new ArrayList<>();
        synchronized (byPhase) {
            byPhase.forEach((name, samples) -> {
                if (!samples.isEmpty()) {
                    phases.add(summary(name, samples));
                    all.addAll(samples);
                }
            });
        }
        if (!all.isEmpty()) {
            phases.add(summary("all", all));
        }
        return phases;
    }

    private static Phase summary(String name, List<Sample> samples) {
        long peakRss = 0;
        long peakHeap = -1;
        for (Sample s : samples) {
            peakRss = Math.max(peakRss, s.rssBytes());
            peakHeap = Math.max(peakHeap, s.heapBytes());
        }
        return new Phase(name, samples.get(0), peakRss, peakHeap, samples.get(samples.size() - 1), samples.size());
    }

    /** Stops after the sample in progress (not interrupted: a sample cut off mid-request would read as no heap). */
    @Override
    public void close() throws InterruptedException {
        running = false;
        thread.join(10_000);
    }
}
