package io.delayq.client;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

import java.time.Instant;

/**
 * Dead letters that failed the same way ({@code GET /v1/admin/dead-letters/groups}), largest group first.
 *
 * @param count    letters in the group (within the query's filter)
 * @param lastHour of those, how many died in the last hour
 * @param example  one letter of the group
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record FailureGroup(Signature signature, long count, long lastHour, Instant firstDeadAt, Instant lastDeadAt,
                           DeadLetter example) {

    /**
     * How the group's letters failed.
     *
     * @param id      12 hex digits: the value of {@link DeadLetterQuery#group(String)}
     * @param kind    {@code HTTP <status>}, or timeout, connect, lease expired, error
     * @param message the last error with numbers, ids and times normalised away
     * @param host    the callback's host[:port], or topic callback, pull consumer, broadcast
     */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Signature(String id, String kind, String message, String host) {
    }
}
