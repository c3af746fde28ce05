package io.delayq.client;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A bulk replay or purge of dead letters in the background, with progress ({@code POST /v1/admin/bulk-operations},
 * target {@code dead-letters}; role admin): {@link DelayqClient#countDeadLetters} for the dry run,
 * {@link DelayqClient#startDeadLetterOperation} to run it, {@link DelayqClient#bulkOperation} to follow it. For a
 * few letters at once, {@link DelayqClient#replayDeadLetters} and {@link DelayqClient#purgeDeadLetters} answer in the
 * request instead.
 *
 * <pre>{@code
 * DeadLetterOperation op = DeadLetterOperation.replay(DeadLetterQuery.topic("emails").group(groupId));
 * BulkOperationInfo started = client.startDeadLetterOperation(op, client.countDeadLetters(op));
 * }</pre>
 */
public final class DeadLetterOperation {
    private final Map<String, Object> body = new LinkedHashMap<>();

    private DeadLetterOperation(String kind, DeadLetterQuery query) {
        Map<String, Object> filter = new LinkedHashMap<>(query.params());
        filter.remove("limit");   // a page's, not the filter's
        filter.remove("cursor");
        body.put("target", "dead-letters");
        body.put("kind", kind);
        body.put("filter", filter);
    }

    /** Replays the letters the query's filters match (without {@code replayed(…)}: the never replayed ones). */
    public static DeadLetterOperation replay(DeadLetterQuery query) {
        return new DeadLetterOperation("replay", query);
    }

    /** Purges the letters the query's filters match; the service wants at least one filter. */
    public static DeadLetterOperation purge(DeadLetterQuery query) {
        return new DeadLetterOperation("purge", query);
    }

    /** Replay only: run the replayed jobs this long after scheduling. */
    public DeadLetterOperation delay(Duration delay) {
        body.put("delayMs", delay.toMillis());
        return this;
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
}
