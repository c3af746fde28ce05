package io.delayq.mongo;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoDatabase;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The archive's connection to MongoDB: its one {@link MongoClient}, the database, and the embedded server when there
 * is one; closing it closes the client and stops the server. {@link #open} is the only place this module builds a
 * client, for a remote {@code uri} and for the embedded server alike, so that every option applies in both modes.
 *
 * @param embedded the server started for it, or null when it connects to {@code uri}
 */
public record MongoConnection(MongoClient client, MongoDatabase database, EmbeddedMongo embedded)
        implements AutoCloseable {

    /**
     * Connects to {@code uri}, or with none (null or blank) starts the embedded server and connects to it.
     *
     * @param serverSelectionTimeout how long an operation waits for a reachable server before it fails; the connect
     *                               timeout is the same, at most 10 s
     * @throws IllegalArgumentException when {@code uri} is not a MongoDB connection string
     */
    public static MongoConnection open(String uri, String database, MongoJobArchiveFactory.Embedded embedded,
                                       Duration serverSelectionTimeout) {
        EmbeddedMongo server = null;
        String connectionString = uri;
        if (connectionString == null || connectionString.isBlank()) {
            server = EmbeddedMongo.start(embedded.getPort(),
                    embedded.isPersistent() ? Path.of(embedded.getDataDir()) : null);
            connectionString = server.uri();
        }
        try {
            MongoClient client = client(connectionString, serverSelectionTimeout);
            return new MongoConnection(client, client.getDatabase(database), server);
        } catch (RuntimeException e) {
            if (server != null) {
                server.close();
            }
            throw e;
        }
    }

    private static MongoClient client(String connectionString, Duration serverSelectionTimeout) {
        ConnectionString parsed;
        try {
            parsed = new ConnectionString(connectionString);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("archive.uri '" + connectionString + "' is not a MongoDB connection string"
                    + " (mongodb://host:port or mongodb+srv://host): " + e.getMessage(), e);
        }
        long selectionMs = serverSelectionTimeout.toMillis();
        return MongoClients.create(MongoClientSettings.builder()
                .applyConnectionString(parsed)
                .applyToClusterSettings(b -> b.serverSelectionTimeout(selectionMs, TimeUnit.MILLISECONDS))
                .applyToSocketSettings(b -> b.connectTimeout((int) Math.min(selectionMs, 10_000), TimeUnit.MILLISECONDS))
                .build());
    }

    @Override
    public void close() {
        client.close();
        if (embedded != null) {
            embedded.close();
        }
    }
}
