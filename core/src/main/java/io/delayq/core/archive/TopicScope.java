package io.delayq.core.archive;

import io.delayq.core.tenant.Tenant;
import io.delayq.core.tenant.TopicPattern;

import java.util.Collection;
import java.util.Collections;
import java.util.Objects;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * The topics an action may see and touch: every topic (an operator's, {@link #all()}), or the exact topics and the
 * prefixes of one tenant's {@link TopicPattern}s ({@link #of(Tenant)}). An archive applies it through its own indexes
 * as one more condition on the dead letters' topic (a {@link DeadLetterQuery#scope()}), so that a tenant's listing,
 * count, groups, purge and replay never read, count or touch another tenant's letters, whatever else the query names.
 *
 * <p>A prefix matches the topics that start with it and go on: {@code billing.} (from {@code billing.*}) matches
 * {@code billing.x} and {@code billing.eu.x}, not {@code billing.} itself, not {@code billing}, not {@code billingx.y}
 * — as {@link TopicPattern#matches} does. Every character of a prefix means itself: topics may contain {@code .},
 * {@code _} and {@code -}, which an archive must not read as pattern characters. Compared by code point: an archive
 * that tests a prefix as a range ({@code topic > prefix AND topic < successor(prefix)}) must compare strings that way
 * too (MongoDB's binary order, a "C"-collated column).
 *
 * @param unrestricted every topic: the other components are empty
 * @param topics       exact topic names (kept sorted, so that a scope's statement is the same text each time)
 * @param prefixes     topic prefixes, none empty (sorted too)
 * @param tenant       the tenant the scope is of, or {@code null} (an operator's {@link #all()}, or a scope not built
 *                     from a tenant): the {@code tenant} of a {@link BulkOperation} run over it
 */
public record TopicScope(boolean unrestricted, Set<String> topics, Set<String> prefixes, String tenant) {
    private static final TopicScope ALL = new TopicScope(true, new TreeSet<>(), new TreeSet<>(), null);
    private static final TopicScope NONE = new TopicScope(false, new TreeSet<>(), new TreeSet<>(), null);

    public TopicScope {
        topics = sortedCopy("topic", topics);
        prefixes = sortedCopy("prefix", prefixes);
        if (unrestricted && (!topics.isEmpty() || !prefixes.isEmpty() || tenant != null)) {
            throw new IllegalArgumentException("an unrestricted scope (every topic) names no topics, prefixes or"
                    + " tenant; use TopicScope.all()");
        }
        if (prefixes.contains("")) {
            throw new IllegalArgumentException("an empty prefix would match every topic; use TopicScope.all()");
        }
    }

    /** Every topic: an operator's scope, and that of a query that names none. */
    public static TopicScope all() {
        return ALL;
    }

    /** No topic at all: what a topic filter outside a scope leaves (see {@link DeadLetterQuery#scopeCondition()}). */
    public static TopicScope none() {
        return NONE;
    }

    /** The topics the tenant owns: its patterns' exact names and wildcards' prefixes, its name as the scope's tenant. */
    public static TopicScope of(Tenant tenant) {
        return of(tenant.name(), tenant.topics());
    }

    /** The topics matched by {@code patterns}, as the scope of {@code tenant} (or of none, when null). */
    public static TopicScope of(String tenant, Collection<TopicPattern> patterns) {
        SortedSet<String> topics = new TreeSet<>();
        SortedSet<String> prefixes = new TreeSet<>();
        for (TopicPattern p : patterns) {
            (p.isWildcard() ? prefixes : topics).add(p.prefix());
        }
        return new TopicScope(false, topics, prefixes, tenant);
    }

    /** Whether the scope holds the topic (see the class comment for prefixes). */
    public boolean matches(String topic) {
        if (unrestricted) {
            return true;
        }
        if (topic == null) {
            return false;
        }
        if (topics.contains(topic)) {
            return true;
        }
        for (String prefix : prefixes) {
            if (topic.length() > prefix.length() && topic.startsWith(prefix)) {
                return true;
            }
        }
        return false;
    }

    /** Whether it holds no topic at all ({@link #none()}, or the like). */
    public boolean isEmpty() {
        return !unrestricted && topics.isEmpty() && prefixes.isEmpty();
    }

    /**
     * The least string of the prefix's length that sorts after every string starting with it (by code point), or
     * {@code null} when there is none (every code point of it the last there is): the exclusive end of the range a
     * prefix is, {@code (prefix, successor(prefix))}.
     */
    public static String successor(String prefix) {
        int[] points = prefix.codePoints().toArray();
        for (int i = points.length - 1; i >= 0; i--) {
            int next = points[i] + 1;
            if (next == Character.MIN_SURROGATE) {
                next = Character.MAX_SURROGATE + 1; // surrogates are no characters of their own
            }
            if (next <= Character.MAX_CODE_POINT) {
                return new String(points, 0, i) + Character.toString(next);
            }
        }
        return null;
    }

    @Override
    public String toString() {
        if (unrestricted) {
            return "TopicScope[all]";
        }
        return "TopicScope[" + (tenant == null ? "" : tenant + " ") + "topics " + topics + " prefixes " + prefixes + "]";
    }

    private static SortedSet<String> sortedCopy(String what, Collection<String> values) {
        SortedSet<String> copy = new TreeSet<>();
        for (String v : values == null ? java.util.List.<String>of() : values) {
            copy.add(Objects.requireNonNull(v, what));
        }
        return Collections.unmodifiableSortedSet(copy);
    }
}
