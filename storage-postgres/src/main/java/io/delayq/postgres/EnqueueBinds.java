package io.delayq.postgres;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delayq.core.Delivery;
import io.delayq.core.NewJob;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The array binds of {@code enqueue.sql} for a batch, by bind name, one element per job: what both enqueue paths
 * write ({@code enqueue.sql} and {@link CopyEnqueue}).
 */
final class EnqueueBinds {
    private EnqueueBinds() {
    }

    /**
     * @param jobs         distinct per topic and id, sorted by topic and id
     * @param fingerprints each job's {@link NewJob#fingerprint()}, in the same order
     */
    static Map<String, Object[]> of(List<NewJob> jobs, List<String> fingerprints, ObjectMapper mapper) {
        int n = jobs.size();
        String[] topics = new String[n];
        String[] ids = new String[n];
        Boolean[] push = new Boolean[n];
        Long[] delayMs = new Long[n];
        Long[] runAtMs = new Long[n];
        Integer[] maxAttempts = new Integer[n];
        Long[] timeoutMs = new Long[n];
        Boolean[] broadcast = new Boolean[n];
        String[] callbacks = new String[n];
        String[] backoffs = new String[n];
        String[] payloads = new String[n];
        String[] traceparents = new String[n];
        String[] tracestates = new String[n];
        String[] onDeads = new String[n];
        Long[] expiresAtMs = new Long[n];
        for (int k = 0; k < n; k++) {
            NewJob job = jobs.get(k);
            topics[k] = job.topic();
            ids[k] = job.id();
            push[k] = job.delivery() == Delivery.PUSH;
            delayMs[k] = job.delayMs();
            runAtMs[k] = job.runAtMs();
            maxAttempts[k] = job.maxAttempts();
            timeoutMs[k] = job.timeoutMs();
            broadcast[k] = job.broadcast();
            callbacks[k] = job.callback() == null ? null : json(mapper, job.callback(), job);
            backoffs[k] = job.backoff() == null ? null : json(mapper, job.backoff(), job);
            payloads[k] = job.payload();
            traceparents[k] = job.trace() == null ? null : job.trace().traceparent();
            tracestates[k] = job.trace() == null ? null : job.trace().tracestate();
            onDeads[k] = job.onDead() == null ? null : json(mapper, job.onDead(), job);
            expiresAtMs[k] = job.expiresAtMs();
        }
        Map<String, Object[]> arrays = new LinkedHashMap<>();
        arrays.put("topics", topics);
        arrays.put("ids", ids);
        arrays.put("push", push);
        arrays.put("delayMs", delayMs);
        arrays.put("runAtMs", runAtMs);
        arrays.put("maxAttempts", maxAttempts);
        arrays.put("fingerprints", fingerprints.toArray(String[]::new));
        arrays.put("timeoutMs", timeoutMs);
        arrays.put("broadcast", broadcast);
        arrays.put("callbacks", callbacks);
        arrays.put("backoffs", backoffs);
        arrays.put("payloads", payloads);
        arrays.put("traceparents", traceparents);
        arrays.put("tracestates", tracestates);
        arrays.put("onDeads", onDeads);
        arrays.put("expiresAtMs", expiresAtMs);
        return arrays;
    }

    private static String json(ObjectMapper mapper, Object value, NewJob job) {
        try {
            return mapper.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("cannot encode job " + job.ref() + ": " + e.getOriginalMessage(), e);
        }
    }
}
