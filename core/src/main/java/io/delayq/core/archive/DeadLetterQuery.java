package io.delayq.core.archive;

/**
 * Which dead letters to list, replay or purge. Every filter is optional; {@code null} means "any".
 *
 * @param topic    only this topic
 * @param fromMs   only those that died at or after this epoch ms
 * @param toMs     only those that died before this epoch ms
 * @param replayed {@code false}: only those never replayed; {@code true}: only replayed ones; {@code null}: both
 * @param limit    at most this many per page (ignored by purge)
 * @param cursor   the {@link Page#nextCursor()} of the previous page, or {@code null} for the first page
 */
public record DeadLetterQuery(String topic, Long fromMs, Long toMs, Boolean replayed, int limit, String cursor) {
    public static final int DEFAULT_LIMIT = 50;
    public static final int MAX_LIMIT = 1000;

    public DeadLetterQuery {
        if (limit < 1 || limit > MAX_LIMIT) {
            throw new IllegalArgumentException("limit is " + limit + "; use 1 to " + MAX_LIMIT);
        }
        if (fromMs != null && toMs != null && fromMs > toMs) {
            throw new IllegalArgumentException("from (" + fromMs + ") is after to (" + toMs + ")");
        }
    }

    /** Every dead letter, first page. */
    public static DeadLetterQuery all() {
        return new DeadLetterQuery(null, null, null, null, DEFAULT_LIMIT, null);
    }

    public static DeadLetterQuery topic(String topic) {
        return new DeadLetterQuery(topic, null, null, null, DEFAULT_LIMIT, null);
    }

    public DeadLetterQuery withLimit(int newLimit) {
        return new DeadLetterQuery(topic, fromMs, toMs, replayed, newLimit, cursor);
    }

    public DeadLetterQuery withCursor(String newCursor) {
        return new DeadLetterQuery(topic, fromMs, toMs, replayed, limit, newCursor);
    }

    public DeadLetterQuery withReplayed(Boolean newReplayed) {
        return new DeadLetterQuery(topic, fromMs, toMs, newReplayed, limit, cursor);
    }

    /** Whether no filter narrows it: a purge of such a query would remove every dead letter. */
    public boolean isUnfiltered() {
        return topic == null && fromMs == null && toMs == null && replayed == null;
    }
}
