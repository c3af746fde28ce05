package io.delayq.mongo;

import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.h2.H2Backend;
import org.h2.mvstore.MVStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A MongoDB-wire-protocol server inside this JVM ({@code mongo-java-server} with its H2 MVStore backend), listening
 * on 127.0.0.1 so that the real driver talks to it over a socket. Data lives in {@code <dataDir>/archive.mv.db} and
 * survives a restart; with no dataDir it is in memory.
 *
 * <p>MVStore writes in the background about once a second; {@link #commit()} writes what is pending and syncs the
 * file (fsync), and the archive calls it after each write so that an entry deleted from the outbox is on disk first,
 * as durable as the embedded Redis's {@code appendfsync always}.
 */
public final class EmbeddedMongo implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedMongo.class);
    static final String FILE_NAME = "archive.mv.db";

    private final MongoServer server;
    private final H2Backend backend;
    private final MVStore store;
    private final InetSocketAddress address;

    private EmbeddedMongo(MongoServer server, H2Backend backend, MVStore store, InetSocketAddress address) {
        this.server = server;
        this.backend = backend;
        this.store = store;
        this.address = address;
    }

    /**
     * Starts a server.
     *
     * @param port    TCP port on 127.0.0.1; 0 picks a free one
     * @param dataDir directory for the data file (created if missing), or {@code null} to keep everything in memory
     */
    public static EmbeddedMongo start(int port, Path dataDir) {
        MVStore store;
        if (dataDir == null) {
            store = MVStore.open(null);
        } else {
            try {
                Files.createDirectories(dataDir);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot create the embedded archive's data directory " + dataDir
                        + "; set archive.embedded.dataDir to a writable directory", e);
            }
            store = new MVStore.Builder().fileName(dataDir.resolve(FILE_NAME).toString()).open();
        }
        H2Backend backend = new H2Backend(store);
        MongoServer server = new MongoServer(backend);
        try {
            server.bind("127.0.0.1", port);
        } catch (RuntimeException e) {
            server.shutdownNow();
            throw new IllegalStateException("cannot start the embedded archive on 127.0.0.1:" + port
                    + " (is another process using it? set archive.embedded.port, 0 = any free port)", e);
        }
        InetSocketAddress address = server.getLocalAddress();
        LOG.info("Embedded MongoDB-wire archive listening on 127.0.0.1:{}, data in {}", address.getPort(),
                dataDir == null ? "memory" : dataDir.toAbsolutePath());
        return new EmbeddedMongo(server, backend, store, address);
    }

    public int port() {
        return address.getPort();
    }

    /** A connection string for the driver. */
    public String uri() {
        return "mongodb://127.0.0.1:" + port() + "/";
    }

    /** Forces everything written so far to disk: written to the file, and the file synced. */
    public void commit() {
        backend.commit();
        if (store.getFileStore() != null) {
            store.sync(); // commit() alone leaves the chunk in the OS's cache, lost on a machine crash
        }
    }

    /** Stops listening, commits and closes the data file (the server closes its backend). */
    @Override
    public void close() {
        server.shutdownNow();
    }
}
