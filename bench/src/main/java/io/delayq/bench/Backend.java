package io.delayq.bench;

import java.util.Map;

/**
 * The server a {@link Workloads} run measures against: the bench Redis or the bench PostgreSQL. It makes a fresh,
 * empty store for each run, says where implementations connect, and measures what a run cost the server.
 */
public interface Backend {

    /** Prefix of the tables this backend's runs go to: "" for Redis (W1, W2, …), "PG-" for PostgreSQL. */
    String tablePrefix();

    /** Empties the store for a new run of {@code owner} (or makes a new one); @return where its client connects */
    String fresh(String owner) throws Exception;

    /** What the store holds now, bytes (Redis used_memory; PostgreSQL: tables and indexes of the run's database). */
    long storedBytes();

    /** Starts counting a run's server-side cost. */
    Mark mark();

    /** After a warm-up, or the last run of an implementation: leaves nothing behind. */
    void clear();

    /** The service's {@code store:} block (W4, W6) for the store {@link #fresh} returned. */
    default String serviceStoreYaml(String where) {
        return BenchServices.storeYaml(where);
    }

    /** A cost baseline. */
    interface Mark {
        Cost cost();
    }

    /** What a run cost the server. */
    interface Cost {
        /** The per-job figures of a run, under this backend's metric names. */
        void into(Map<String, Double> metrics, long jobs);

        /** The per-job figures of W1's bulk path ({@code bulk_…} names). */
        void intoBulk(Map<String, Double> metrics, long jobs);

        /** Per command: {calls, usec}; empty where the server does not count commands. */
        Map<String, long[]> commands();

        /** A short text for the progress log. */
        String brief(Map<String, Double> metrics);
    }
}
