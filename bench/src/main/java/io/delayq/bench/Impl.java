package io.delayq.bench;

/** An implementation under test: makes a fresh {@link QueueAdapter} per run. */
public interface Impl {
    /** Short name used on the command line ({@code --impl}). */
    String name();

    /** Name and version shown in tables, e.g. {@code redisson-4.7.0}. */
    String label();

    /** How the bulk column is produced, or {@code null} when there is no bulk path. */
    String bulkPath();

    /** The delivery contract, for the notes. */
    String semantics();

    /**
     * A client on the store at {@code storeUri} ({@code redis://…}, or {@code jdbc:postgresql://…} for the
     * implementations of the PostgreSQL part), for one run on queue {@code queueName}.
     */
    QueueAdapter open(String storeUri, String queueName) throws Exception;
}
