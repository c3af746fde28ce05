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
}
