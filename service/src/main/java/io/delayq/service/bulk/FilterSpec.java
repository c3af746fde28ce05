package io.delayq.service.bulk;

import io.delayq.core.archive.DeadLetterQuery;
import io.delayq.core.listing.JobQuery;
import io.delayq.service.deadletters.DeadLetterFilters;
import io.delayq.service.errors.InvalidFieldsException;
import io.delayq.service.listing.JobFilters;

import java.util.ArrayList;
import java.util.List;

/**
 * What a bulk operation works through, as its request body gives it. Dead letters: the list endpoint's filters
 * ({@code payloadField}/{@code payloadValue} for {@code payload.<field>=<value>}; {@code cause} a {@code DeadCause}
 * name). Jobs: the job listing's filters ({@code topic}, required, {@code state}, {@code from}, {@code to},
 * {@code idPrefix}, {@code payloadField}, {@code payloadValue}).
 */
public record FilterSpec(String topic, String from, String to, Boolean replayed, String host, Integer status,
                         String idPrefix, String group, String payloadField, String payloadValue, String cause,
                         String state) {
    static final FilterSpec NONE = new FilterSpec(null, null, null, null, null, null, null, null, null, null, null,
            null);

    DeadLetterQuery toQuery() {
        if (state != null) {
            throw new IllegalArgumentException("filter.state is a filter of jobs (target \"jobs\"); dead letters have"
                    + " no state to filter by");
        }
        return DeadLetterFilters.of(topic, from, to, replayed, host, status, idPrefix, payloadField, payloadValue,
                group, DeadLetterQuery.DEFAULT_LIMIT, null).withCause(DeadLetterFilters.cause(cause));
    }

    /**
     * @throws InvalidFieldsException (400) without a topic: a job operation works on one topic
     * @throws IllegalArgumentException (422) a dead-letter filter ({@code replayed}, {@code host}, {@code status},
     *                                  {@code group}) or a bad value
     */
    JobQuery toJobQuery() {
        if (topic == null || topic.isBlank()) {
            throw new InvalidFieldsException("a bulk operation on jobs must name its topic: filter.topic",
                    "filter.topic");
        }
        List<String> deadLetterOnly = new ArrayList<>();
        if (replayed != null) {
            deadLetterOnly.add("replayed");
        }
        if (host != null) {
            deadLetterOnly.add("host");
        }
        if (status != null) {
            deadLetterOnly.add("status");
        }
        if (group != null) {
            deadLetterOnly.add("group");
        }
        if (cause != null) {
            deadLetterOnly.add("cause");
        }
        if (!deadLetterOnly.isEmpty()) {
            throw new IllegalArgumentException("filter." + String.join(", filter.", deadLetterOnly) + " filter dead"
                    + " letters, not jobs; a job filter has topic, state, from, to, idPrefix, payloadField and"
                    + " payloadValue");
        }
        return JobFilters.query(topic, state == null ? null : List.of(state), from, to, idPrefix, payloadField,
                payloadValue, JobQuery.MAX_LIMIT, null);
    }
}
