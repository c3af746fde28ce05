package io.delayq.core.archive;

import io.delayq.core.DeadCause;
import io.delayq.core.JobRules;

import java.util.regex.Pattern;

/**
 * Which dead letters to list, count, group, replay or purge. Every filter is optional; {@code null} means "any".
 *
 * @param topic        only this topic
 * @param fromMs       only those that died at or after this epoch ms
 * @param toMs         only those that died before this epoch ms
 * @param replayed     {@code false}: only those never replayed; {@code true}: only replayed ones; {@code null}: both
 * @param limit        at most this many per page (ignored by count, purge and replay-by-filter)
 * @param cursor       the {@link Page#nextCursor()} of the previous page, or {@code null} for the first page
 * @param host         only those whose {@link FailureSignature#host()} is this (e.g. {@code api.example.com:8443})
 * @param httpStatus   only those whose last attempt got this HTTP status
 * @param idPrefix     only job ids starting with this
 * @param payloadField with {@code payloadValue}: only payloads (JSON objects) whose field at this dot path
 *                     ({@code order.id}) equals the value, as a JSON string or, when the value reads as one, a number
 *                     or boolean
 * @param payloadValue see {@code payloadField}
 * @param group        only this {@link FailureSignature#id()}
 * @param scope        only letters of these topics: the topics of the tenant acting, or {@link TopicScope#all()} (an
 *                     operator; {@code null} is read as that). Unlike the filters above it is not the caller's to
 *                     choose: the service sets it from who is asking, every {@code with…} keeps it, and whatever the
 *                     filters name, nothing outside it is listed, counted, grouped, replayed or purged — a
 *                     {@code topic} outside it matches nothing (an empty answer, not an error)
 * @param cause        only letters that died of this ({@link io.delayq.core.Job#deadCause()}: a letter stored before
 *                     causes existed counts as {@link DeadCause#ATTEMPTS_EXHAUSTED})
 */
public record DeadLetterQuery(String topic, Long fromMs, Long toMs, Boolean replayed, int limit, String cursor,
                              String host, Integer httpStatus, String idPrefix, String payloadField,
                              String payloadValue, String group, TopicScope scope, DeadCause cause) {
    public static final int DEFAULT_LIMIT = 50;
    public static final int MAX_LIMIT = 1000;
    /** A payload field path: up to 8 names of letters, digits, '_' or '-', joined by dots. */
    public static final Pattern PAYLOAD_FIELD = Pattern.compile("[A-Za-z0-9_-]{1,64}(\\.[A-Za-z0-9_-]{1,64}){0,7}");
    public static final int MAX_FILTER_LENGTH = 200;

    public DeadLetterQuery {
        if (limit < 1 || limit > MAX_LIMIT) {
            throw new IllegalArgumentException("limit is " + limit + "; use 1 to " + MAX_LIMIT);
        }
        if (fromMs != null && toMs != null && fromMs > toMs) {
            throw new IllegalArgumentException("from (" + fromMs + ") is after to (" + toMs + ")");
        }
        if (httpStatus != null && (httpStatus < 100 || httpStatus > 599)) {
            throw new IllegalArgumentException("status is " + httpStatus + "; an HTTP status is 100 to 599");
        }
        if ((payloadField == null) != (payloadValue == null)) {
            throw new IllegalArgumentException("a payload filter needs both a field and a value (payload.orderId=42)");
        }
        if (payloadField != null && !PAYLOAD_FIELD.matcher(payloadField).matches()) {
            throw new IllegalArgumentException("payload field " + JobRules.quote(payloadField)
                    + " is not a dot path of names made of"
                    + " letters, digits, '_' and '-' (at most 8 names of 64 characters)");
        }
        if (group != null && !FailureSignature.ID.matcher(group).matches()) {
            throw new IllegalArgumentException("group " + JobRules.quote(group) + " is not a failure signature id (12 hex digits,"
                    + " as GET /v1/admin/dead-letters/groups lists them)");
        }
        checkLength("host", host);
        checkLength("idPrefix", idPrefix);
        checkLength("payload value", payloadValue);
        if (idPrefix != null && idPrefix.isEmpty()) {
            throw new IllegalArgumentException("idPrefix is empty; leave it out to match every id");
        }
        scope = scope == null ? TopicScope.all() : scope;
    }

    /** Every filter but the cause (the form before causes existed). */
    public DeadLetterQuery(String topic, Long fromMs, Long toMs, Boolean replayed, int limit, String cursor,
                           String host, Integer httpStatus, String idPrefix, String payloadField,
                           String payloadValue, String group, TopicScope scope) {
        this(topic, fromMs, toMs, replayed, limit, cursor, host, httpStatus, idPrefix, payloadField, payloadValue,
                group, scope, null);
    }

    /** Every filter, over every topic (an operator's query). */
    public DeadLetterQuery(String topic, Long fromMs, Long toMs, Boolean replayed, int limit, String cursor,
                           String host, Integer httpStatus, String idPrefix, String payloadField,
                           String payloadValue, String group) {
        this(topic, fromMs, toMs, replayed, limit, cursor, host, httpStatus, idPrefix, payloadField, payloadValue,
                group, TopicScope.all());
    }

    /** The filters of the first releases: topic, time range, replayed. */
    public DeadLetterQuery(String topic, Long fromMs, Long toMs, Boolean replayed, int limit, String cursor) {
        this(topic, fromMs, toMs, replayed, limit, cursor, null, null, null, null, null, null, TopicScope.all());
    }

    /** Every dead letter, first page. */
    public static DeadLetterQuery all() {
        return new DeadLetterQuery(null, null, null, null, DEFAULT_LIMIT, null);
    }

    public static DeadLetterQuery topic(String topic) {
        return new DeadLetterQuery(topic, null, null, null, DEFAULT_LIMIT, null);
    }

    public DeadLetterQuery withLimit(int newLimit) {
        return new DeadLetterQuery(topic, fromMs, toMs, replayed, newLimit, cursor, host, httpStatus, idPrefix,
                payloadField, payloadValue, group, scope, cause);
    }

    public DeadLetterQuery withCursor(String newCursor) {
        return new DeadLetterQuery(topic, fromMs, toMs, replayed, limit, newCursor, host, httpStatus, idPrefix,
                payloadField, payloadValue, group, scope, cause);
    }

    public DeadLetterQuery withReplayed(Boolean newReplayed) {
        return new DeadLetterQuery(topic, fromMs, toMs, newReplayed, limit, cursor, host, httpStatus, idPrefix,
                payloadField, payloadValue, group, scope, cause);
    }

    public DeadLetterQuery withHost(String newHost) {
        return new DeadLetterQuery(topic, fromMs, toMs, replayed, limit, cursor, newHost, httpStatus, idPrefix,
                payloadField, payloadValue, group, scope, cause);
    }

    public DeadLetterQuery withHttpStatus(Integer status) {
        return new DeadLetterQuery(topic, fromMs, toMs, replayed, limit, cursor, host, status, idPrefix,
                payloadField, payloadValue, group, scope, cause);
    }

    public DeadLetterQuery withIdPrefix(String prefix) {
        return new DeadLetterQuery(topic, fromMs, toMs, replayed, limit, cursor, host, httpStatus, prefix,
                payloadField, payloadValue, group, scope, cause);
    }

    public DeadLetterQuery withPayload(String field, String value) {
        return new DeadLetterQuery(topic, fromMs, toMs, replayed, limit, cursor, host, httpStatus, idPrefix,
                field, value, group, scope, cause);
    }

    public DeadLetterQuery withGroup(String signatureId) {
        return new DeadLetterQuery(topic, fromMs, toMs, replayed, limit, cursor, host, httpStatus, idPrefix,
                payloadField, payloadValue, signatureId, scope, cause);
    }

    /** The same filters, only letters that died of {@code newCause} ({@code null}: of anything). */
    public DeadLetterQuery withCause(DeadCause newCause) {
        return new DeadLetterQuery(topic, fromMs, toMs, replayed, limit, cursor, host, httpStatus, idPrefix,
                payloadField, payloadValue, group, scope, newCause);
    }

    /** The same filters over the letters of {@code newScope} only ({@code null}: every topic). */
    public DeadLetterQuery withScope(TopicScope newScope) {
        return new DeadLetterQuery(topic, fromMs, toMs, replayed, limit, cursor, host, httpStatus, idPrefix,
                payloadField, payloadValue, group, newScope, cause);
    }

    /**
     * What an archive must add to the other filters for the {@link #scope()}: {@code null} when nothing (an
     * unrestricted scope, or a {@code topic} filter inside it, which is the narrower condition); {@link TopicScope#none()}
     * when no letter can match (a {@code topic} outside it); else the scope, to be tested on the letters' topic.
     */
    public TopicScope scopeCondition() {
        if (scope.unrestricted()) {
            return null;
        }
        if (topic != null) {
            return scope.matches(topic) ? null : TopicScope.none();
        }
        return scope;
    }

    /**
     * Whether no filter narrows it: a purge of such a query would remove every dead letter of its {@link #scope()}
     * (the scope is not a filter: it is who asks, not what they asked for).
     */
    public boolean isUnfiltered() {
        return topic == null && fromMs == null && toMs == null && replayed == null && host == null
                && httpStatus == null && idPrefix == null && payloadField == null && group == null && cause == null;
    }

    private static void checkLength(String name, String value) {
        if (value != null && value.length() > MAX_FILTER_LENGTH) {
            throw new IllegalArgumentException(name + " is " + value.length() + " characters long; at most "
                    + MAX_FILTER_LENGTH);
        }
    }
}
