package io.delayq.postgres;

import io.delayq.core.NewJob;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The topics this instance knows to be in {@code delayq_topics}. Topics are registered before their jobs are written,
 * so a crash in between never hides a topic that has jobs; a batch whose topics are all known here skips that
 * statement.
 */
final class KnownTopics {
    private final Set<String> known = ConcurrentHashMap.newKeySet();
    private final JobQueries queries;

    KnownTopics(JobQueries queries) {
        this.queries = queries;
    }

    /** Registers the topics of {@code jobs} not known yet: one statement, or none when all are known. */
    void register(List<NewJob> jobs) {
        expire();
        Set<String> unknown = new HashSet<>();
        for (NewJob job : jobs) {
            if (!known.contains(job.topic())) {
                unknown.add(job.topic());
            }
        }
        if (!unknown.isEmpty()) {
            String[] topics = unknown.stream().sorted().toArray(String[]::new);
            PostgresCalls.call("register topics", () -> {
                queries.registerTopics(topics);
                return null;
            });
            known.addAll(unknown);
        }
    }

    /** A topic whose row another statement has written (its settings). */
    void add(String topic) {
        known.add(topic);
    }

    /** A topic this instance deleted (issue 26, finding 12): its next job registers it again. */
    void forget(String topic) {
        known.remove(topic);
    }

    /**
     * Forgets every topic known here, at most once a minute ({@link PostgresJobStore#forgetIfIdle} and the listing
     * call it): a topic another instance deleted is registered again by the next job this instance writes to it,
     * within a minute of the deletion, at the cost of one {@code register_topics} per topic written per minute.
     */
    void expire() {
        long now = System.nanoTime();
        if (now - clearedAtNanos > EXPIRE_NANOS) {
            clearedAtNanos = now;
            known.clear();
        }
    }

    private static final long EXPIRE_NANOS = java.util.concurrent.TimeUnit.MINUTES.toNanos(1);
    private volatile long clearedAtNanos = System.nanoTime();
}
