package io.delayq.service.bulk;

import io.delayq.core.archive.DeadLetterQuery;
import io.delayq.service.deadletters.DeadLetterFilters;

/**
 * The dead letters a bulk operation works through, as its request body gives them: the list endpoint's filters
 * ({@code payloadField}/{@code payloadValue} for {@code payload.<field>=<value>}; {@code cause} a {@code DeadCause}
 * name).
 */
public record FilterSpec(String topic, String from, String to, Boolean replayed, String host, Integer status,
                         String idPrefix, String group, String payloadField, String payloadValue, String cause) {
    static final FilterSpec NONE = new FilterSpec(null, null, null, null, null, null, null, null, null, null, null);

    DeadLetterQuery toQuery() {
        return DeadLetterFilters.of(topic, from, to, replayed, host, status, idPrefix, payloadField, payloadValue,
                group, DeadLetterQuery.DEFAULT_LIMIT, null).withCause(DeadLetterFilters.cause(cause));
    }
}
