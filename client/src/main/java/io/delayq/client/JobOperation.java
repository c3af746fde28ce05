package io.delayq.client;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A bulk operation on a topic's jobs ({@code POST /v1/admin/bulk-operations} with {@code target: "jobs"}): what it
 * does and the job listing's filter it works through ({@link DelayqClient#countJobs} for the dry run,
 * {@link DelayqClient#startJobOperation} to run it).
 *
 * <pre>{@code
 * JobOperation op = JobOperation.cancel("reminders").payload("campaign", "wrong-2026");
 * long n = client.countJobs(op);
 * BulkOperationInfo started = client.startJobOperation(op, n);
 * }</pre>
 */
public final class JobOperation {
    private final Map<String, Object> body = new LinkedHashMap<>();
    private final Map<String, Object> filter = new LinkedHashMap<>();

    private JobOperation(String kind, String topic) {
        body.put("target", "jobs");
        body.put("kind", kind);
        body.put("filter", filter);
        filter.put("topic", topic);
    }

    public static JobOperation cancel(String topic) {
        return new JobOperation("cancel", topic);
    }

    public static JobOperation runNow(String topic) {
        return new JobOperation("run-now", topic);
    }

    /** Moves every job to {@code runAt}. */
    public static JobOperation reschedule(String topic, Instant runAt) {
        JobOperation op = new JobOperation("reschedule", topic);
        op.body.put("runAt", runAt.toString());
        return op;
    }

    /** Moves each job's run time by {@code shift} (negative: earlier). */
    public static JobOperation shift(String topic, Duration shift) {
        JobOperation op = new JobOperation("reschedule", topic);
        op.body.put("shiftMs", shift.toMillis());
        return op;
    }

    /** Only these states (default: scheduled and leased). */
    public JobOperation states(String... states) {
        return set("state", states.length == 0 ? null : String.join(",", states));
    }

    public JobOperation from(Instant from) {
        return set("from", from == null ? null : from.toString());
    }

    public JobOperation to(Instant to) {
        return set("to", to == null ? null : to.toString());
    }

    public JobOperation idPrefix(String prefix) {
        return set("idPrefix", prefix);
    }

    public JobOperation payload(String field, String value) {
        set("payloadField", field);
        return set("payloadValue", value);
    }

    /** The request body, with {@code dryRun} and {@code expectedCount} as given. */
    Map<String, Object> body(boolean dryRun, Long expectedCount) {
        Map<String, Object> out = new LinkedHashMap<>(body);
        out.put("dryRun", dryRun);
        if (expectedCount != null) {
            out.put("expectedCount", expectedCount);
        }
        return out;
    }

    private JobOperation set(String name, Object value) {
        if (value == null) {
            filter.remove(name);
        } else {
            filter.put(name, value);
        }
        return this;
    }
}
