package io.delayq.core.tenant;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import io.delayq.core.JobRules;

/**
 * The topics a tenant owns, named by one pattern: a topic name ({@code billing.invoices}: that topic), or a name
 * followed by {@code .*} ({@code billing.*}: every topic whose name starts with {@code billing.} and goes on —
 * {@code billing.x} and {@code billing.eu.x}, but not {@code billing}). Nothing else is a pattern: no {@code *} alone,
 * none in the middle, none without its dot, so that which tenant owns a topic never depends on anything but the
 * name's dotted prefixes, and two patterns overlap exactly when one's prefix starts with the other's.
 */
public record TopicPattern(String text) {
    private static final String WILDCARD = ".*";

    public TopicPattern {
        if (text == null || text.isEmpty()) {
            throw new IllegalArgumentException("a topic pattern is a topic name, or a name followed by '.*'"
                    + " (e.g. \"billing.*\"); it was empty");
        }
        String name = text.endsWith(WILDCARD) ? text.substring(0, text.length() - WILDCARD.length()) : text;
        if (name.contains("*")) {
            throw new IllegalArgumentException("topic pattern " + JobRules.quote(text) + " has a '*' other than at the"
                    + " end after a dot: a pattern is a topic name, or a name followed by '.*' (e.g. \"billing.*\")");
        }
        try {
            JobRules.checkClientTopic(name);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("topic pattern " + JobRules.quote(text) + ": " + e.getMessage());
        }
    }

    @JsonCreator
    public static TopicPattern of(String text) {
        return new TopicPattern(text);
    }

    @JsonValue
    @Override
    public String text() {
        return text;
    }

    /** Whether the pattern ends in {@code .*}. */
    public boolean isWildcard() {
        return text.endsWith(WILDCARD);
    }

    /** A wildcard's prefix, dot included ({@code billing.} for {@code billing.*}); a topic name's whole name. */
    public String prefix() {
        return isWildcard() ? text.substring(0, text.length() - 1) : text;
    }

    public boolean matches(String topic) {
        if (!isWildcard()) {
            return text.equals(topic);
        }
        String prefix = prefix();
        return topic.length() > prefix.length() && topic.startsWith(prefix);
    }

    /** Whether some topic matches both patterns. */
    public boolean overlaps(TopicPattern other) {
        if (!isWildcard() && !other.isWildcard()) {
            return text.equals(other.text);
        }
        if (!isWildcard()) {
            return other.matches(text);
        }
        if (!other.isWildcard()) {
            return matches(other.text);
        }
        return prefix().startsWith(other.prefix()) || other.prefix().startsWith(prefix());
    }

    @Override
    public String toString() {
        return text;
    }
}
