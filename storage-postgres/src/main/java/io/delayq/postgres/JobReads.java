package io.delayq.postgres;

import io.delayq.core.Delivery;
import io.delayq.core.Job;
import io.delayq.core.JobRef;
import io.delayq.core.TopicStats;
import io.delayq.core.TopicTimes;
import io.delayq.postgres.Rows.Counts;

import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** The store's reads that change nothing: a job, a lane's next times, the topics, a topic's stats, the clock. */
final class JobReads {
    private final JobQueries queries;

    JobReads(JobQueries queries) {
        this.queries = queries;
    }

    Optional<Job> find(JobRef ref) {
        return PostgresCalls.call("find", () -> queries.find(ref.topic(), ref.id()));
    }

    long nextLeaseDeadline(String topic) {
        Long next = PostgresCalls.call("read the next lease deadline", () -> queries.nextLeaseDeadline(topic));
        return next == null ? -1 : next;
    }

    long nextDueAt(String topic, Delivery lane) {
        Long next = PostgresCalls.call("read the next run time", () -> queries.nextDueAt(topic, lane == Delivery.PUSH));
        return next == null ? -1 : next;
    }

    /** Every topic asked, once, in the order asked ({@code times_many.sql}: one statement). */
    Map<String, TopicTimes> times(Collection<String> topics) {
        Map<String, TopicTimes> out = new LinkedHashMap<>();
        topics.forEach(t -> out.put(t, TopicTimes.none(t)));
        if (!out.isEmpty()) {
            String[] asked = out.keySet().toArray(String[]::new);
            PostgresCalls.call("read the next due times", () -> queries.timesOf(asked)).forEach(r -> out.put(r.topic(), r));
        }
        return out;
    }

    Set<String> topics() {
        return new HashSet<>(PostgresCalls.call("list topics", queries::topics));
    }

    TopicStats stats(String topic) {
        Counts counts = PostgresCalls.call("read stats", () -> queries.stats(topic));
        return new TopicStats(topic, counts.scheduled(), counts.leased(), counts.dead(), counts.succeeded(),
                counts.nextRunAt() == null ? -1 : counts.nextRunAt());
    }

    /** What {@link #stats(String)} answers for each topic, from one statement; zeros for a topic without counters. */
    Map<String, TopicStats> stats(Collection<String> topics) {
        Map<String, TopicStats> out = new LinkedHashMap<>();
        topics.forEach(t -> out.put(t, new TopicStats(t, 0, 0, 0, 0, -1)));
        if (!out.isEmpty()) {
            String[] asked = out.keySet().toArray(String[]::new);
            PostgresCalls.call("read stats", () -> queries.statsOf(asked)).forEach(s -> out.put(s.topic(), s));
        }
        return out;
    }

    long now() {
        return PostgresCalls.call("read the clock", queries::now);
    }
}
