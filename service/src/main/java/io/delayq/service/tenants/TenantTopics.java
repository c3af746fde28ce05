package io.delayq.service.tenants;

import io.delayq.core.JobStore;
import io.delayq.core.archive.TopicScope;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A tenant's topics read from the store by its patterns ({@link TopicScope#of}: exact names and wildcards' prefixes),
 * never from the whole topic list: a prefix is a range of the store's index by name
 * ({@link JobStore#topicsStartingWith}, {@link io.delayq.core.schedule.ScheduleStore#counts}), the exact names are
 * read all in one call ({@link JobStore#topicsAmong}). A prefix or name inside another prefix of the same scope
 * ({@code billing.eu.} or {@code billing.x} beside {@code billing.}) is not read again. So a read costs the scope's own
 * topics, one store call per wildcard pattern and one for the exact names, however many topics other teams hold.
 * Names in code point order (topic names are ASCII: {@link String} order).
 */
public final class TenantTopics {
    /** Topics per read of a prefix's range when all of them are read. */
    static final int PAGE = 500;

    private final JobStore store;

    public TenantTopics(JobStore store) {
        this.store = store;
    }

    /** Every topic of the store (with jobs or settings) in the scope. */
    public Set<String> all(TopicScope scope) {
        if (scope.unrestricted()) {
            throw new IllegalArgumentException("every topic is store.topics(); this reads a tenant's");
        }
        Set<String> owned = new TreeSet<>();
        for (String prefix : outermost(scope.prefixes())) {
            String after = null;
            List<String> page;
            do {
                page = store.topicsStartingWith(prefix, after, PAGE);
                for (String topic : page) {
                    if (scope.matches(topic)) { // not the prefix itself: "billing." is no topic of billing.*
                        owned.add(topic);
                    }
                }
                after = page.isEmpty() ? null : page.get(page.size() - 1);
            } while (page.size() == PAGE);
        }
        owned.addAll(store.topicsAmong(namesOutside(scope)));
        return owned;
    }

    /**
     * The scope's topics after {@code after} (exclusive; {@code null}: from the first), in name order, at most
     * {@code limit}: the first {@code limit} of each pattern's range merged, so one store call per pattern.
     */
    public List<String> page(TopicScope scope, String after, int limit) {
        if (scope.unrestricted()) {
            return store.topics(after, limit);
        }
        TreeSet<String> merged = new TreeSet<>();
        for (String prefix : outermost(scope.prefixes())) {
            // one more than the limit: the prefix itself, when it is a topic, is read and left out
            for (String topic : store.topicsStartingWith(prefix, after, limit + 1)) {
                if (scope.matches(topic)) {
                    merged.add(topic);
                }
            }
        }
        List<String> names = namesOutside(scope).stream()
                .filter(name -> after == null || name.compareTo(after) > 0).toList();
        if (!names.isEmpty()) {
            merged.addAll(store.topicsAmong(names));
        }
        return merged.stream().limit(limit).toList();
    }

    /**
     * The scope's schedules by topic, read by its patterns as its topics are; none when the store keeps no schedules.
     */
    public Map<String, Long> scheduleCounts(TopicScope scope) {
        Map<String, Long> counts = new TreeMap<>();
        try {
            for (String prefix : outermost(scope.prefixes())) {
                String after = null;
                Map<String, Long> page;
                do {
                    page = store.schedules().counts(prefix, after, PAGE);
                    for (Map.Entry<String, Long> e : page.entrySet()) {
                        if (scope.matches(e.getKey())) {
                            counts.put(e.getKey(), e.getValue());
                        }
                        after = e.getKey();
                    }
                } while (page.size() == PAGE);
            }
            for (String name : namesOutside(scope)) {
                Long n = store.schedules().counts(name, null, 1).get(name);
                if (n != null) {
                    counts.put(name, n);
                }
            }
        } catch (UnsupportedOperationException noSchedules) {
            return Map.of();
        }
        return counts;
    }

    /** The prefixes no other prefix of the set covers: each topic of {@code billing.eu.} is one of {@code billing.}. */
    static List<String> outermost(Set<String> prefixes) {
        List<String> out = new ArrayList<>();
        for (String p : prefixes) {
            if (prefixes.stream().noneMatch(q -> !q.equals(p) && p.startsWith(q))) {
                out.add(p);
            }
        }
        return out;
    }

    /** The scope's exact names that none of its prefixes matches (those are read with the prefix). */
    private static List<String> namesOutside(TopicScope scope) {
        List<String> out = new ArrayList<>();
        for (String name : scope.topics()) {
            if (scope.prefixes().stream().noneMatch(p -> name.length() > p.length() && name.startsWith(p))) {
                out.add(name);
            }
        }
        return out;
    }
}
