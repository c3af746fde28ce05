package io.delayq.postgres;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delayq.core.Job;
import io.delayq.core.StoreListener;
import io.delayq.core.StoreListeners;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Broadcasts published ({@link #publish}), and LISTEN on one dedicated connection per store, shared by every
 * {@link StoreListener}: {@code delayq_wake}
 * ({@code topic\nLANE\ndueAt ms}, sent by the statements that move a lane's earliest run time earlier) and
 * {@code delayq_broadcast} (the seq of a {@code delayq_broadcasts} row, read on the same connection). A lost
 * connection is reopened with backoff (100 ms … 5 s); what was sent meanwhile is missed, which the delivery engine's
 * safety sweep covers, as with Redis pub/sub.
 */
final class Notifications implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Notifications.class);
    /** The channels: {@code listen.sql} names them too. */
    static final String WAKE = "delayq_wake";
    static final String BROADCAST = "delayq_broadcast";
    private static final NamedSql LISTEN = NamedSql.load("listen");
    private static final NamedSql READ_BROADCAST = NamedSql.load("read_broadcast");

    /** Opens a plain connection, outside the pool: it is held for as long as the store lives. */
    interface Connector {
        Connection open() throws SQLException;
    }

    private final Connector connector;
    private final ObjectMapper mapper;
    private final JobQueries queries;
    private final StoreListeners listeners = new StoreListeners();
    private final Object lock = new Object();
    private volatile CountDownLatch live = new CountDownLatch(1);
    private volatile boolean running;
    private Thread thread;

    /**
     * @param connector opens the LISTEN connection
     * @param queries   publishes broadcasts, on the store's pool
     */
    Notifications(Connector connector, ObjectMapper mapper, JobQueries queries) {
        this.connector = connector;
        this.mapper = mapper;
        this.queries = queries;
    }

    /** Stores the job in {@code delayq_broadcasts} and NOTIFYs its seq to every instance, in one statement. */
    void publish(Job job) {
        String json;
        try {
            json = mapper.writeValueAsString(job);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("cannot encode job " + job.ref() + ": " + e.getOriginalMessage(), e);
        }
        PostgresCalls.call("publish a broadcast", () -> queries.publishBroadcast(json));
    }

    /** Adds a listener; returns once the LISTEN is in place (or after 5 s of trying, with a warning). */
    AutoCloseable add(StoreListener listener) {
        AutoCloseable registration = listeners.add(listener);
        synchronized (lock) {
            if (thread == null) {
                running = true;
                thread = new Thread(this::run, "delayq-postgres-listen");
                thread.setDaemon(true);
                thread.start();
            }
        }
        try {
            if (!live.await(5, TimeUnit.SECONDS)) {
                LOG.warn("PostgreSQL LISTEN is not in place yet; wake-ups and broadcasts start once it is");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return registration;
    }

    private void run() {
        long backoffMs = 100;
        boolean warned = false;
        while (running) {
            try (Connection c = connector.open(); Statement s = c.createStatement()) {
                s.execute(LISTEN.sql());
                live.countDown();
                if (warned) {
                    LOG.info("PostgreSQL LISTEN connection is back");
                }
                backoffMs = 100;
                warned = false;
                PGConnection pg = c.unwrap(PGConnection.class);
                while (running) {
                    PGNotification[] received = pg.getNotifications(500);
                    if (received != null) {
                        for (PGNotification n : received) {
                            dispatch(c, n);
                        }
                    }
                }
            } catch (SQLException | RuntimeException e) {
                if (!running) {
                    break;
                }
                if (live.getCount() == 0) {
                    live = new CountDownLatch(1);
                }
                if (!warned) {
                    LOG.warn("PostgreSQL LISTEN connection lost ({}); reconnecting", e.toString());
                    warned = true;
                }
                sleep(backoffMs);
                backoffMs = Math.min(5_000, backoffMs * 2);
            }
        }
    }

    private void dispatch(Connection c, PGNotification n) throws SQLException {
        if (WAKE.equals(n.getName())) {
            String[] parts = n.getParameter().split("\n");
            if (parts.length == 3) {
                long dueAt = Long.parseLong(parts[2]);
                listeners.wake(parts[0], dueAt);
            }
        } else if (BROADCAST.equals(n.getName())) {
            Job job = readBroadcast(c, Long.parseLong(n.getParameter()));
            if (job != null) {
                listeners.broadcast(job);
            }
        }
    }

    private Job readBroadcast(Connection c, long seq) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(READ_BROADCAST.sql())) {
            READ_BROADCAST.set(ps, "seq", seq);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return null; // reaped already: a listener that far behind has missed it
                }
                try {
                    return mapper.readValue(rs.getString(1), Job.class);
                } catch (JsonProcessingException e) {
                    LOG.warn("broadcast {} is not a readable job, skipped: {}", seq, e.getOriginalMessage());
                    return null;
                }
            }
        }
    }

    @Override
    public void close() {
        Thread t;
        synchronized (lock) {
            running = false;
            t = thread;
            thread = null;
        }
        listeners.clear();
        if (t != null) {
            try {
                t.join(2_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
