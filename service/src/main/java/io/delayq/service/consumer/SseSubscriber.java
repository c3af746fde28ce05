package io.delayq.service.consumer;

import jakarta.ws.rs.sse.OutboundSseEvent;
import jakarta.ws.rs.sse.SseEventSink;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * One event-stream subscriber with its own bounded queue. {@link #offer} never blocks: it queues the event and, when
 * no write is under way, starts one on the writer pool; the writer sends queued events one after another. A write to
 * a client that does not read blocks only that writer, never the thread that offered the event (the store's
 * notification thread, which also delivers every wake-up).
 *
 * <p>A subscriber whose queue would grow past {@code maxQueuedBytes} cannot keep up: it is dropped — its queue
 * emptied, its connection aborted and its stream closed, on the writer pool — and the client, as SSE clients do,
 * reconnects and misses what was sent meanwhile.
 */
final class SseSubscriber {
    private static final Logger LOG = LoggerFactory.getLogger(SseSubscriber.class);

    /** What ends a subscriber, for the hub. */
    interface Listener {
        /** The subscriber has ended (closed, gone, or dropped); {@code dropped} when it fell behind. */
        void ended(SseSubscriber subscriber, boolean dropped);
    }

    private record Queued(OutboundSseEvent event, long bytes) {
    }

    final String topic;
    private final SseEventSink sink;
    private final Runnable abortConnection;
    private final Executor writers;
    private final long maxQueuedBytes;
    private final Listener listener;

    // guarded by this
    private final Deque<Queued> queue = new ArrayDeque<>();
    private long queuedBytes;
    private boolean writing;
    private boolean ended;

    /**
     * @param abortConnection closes the client's connection at once, failing a write that is blocked on it
     * @param writers         where events are written (threads that may block on a slow client)
     * @param maxQueuedBytes  how far behind the subscriber may fall before it is dropped
     */
    SseSubscriber(String topic, SseEventSink sink, Runnable abortConnection, Executor writers, long maxQueuedBytes,
                  Listener listener) {
        this.topic = topic;
        this.sink = sink;
        this.abortConnection = abortConnection;
        this.writers = writers;
        this.maxQueuedBytes = maxQueuedBytes;
        this.listener = listener;
    }

    /**
     * Queues an event for this subscriber; never blocks.
     *
     * @param bytes the event's size, as counted against {@code maxQueuedBytes}
     * @return false when the subscriber has ended, or has just been dropped for falling behind
     */
    boolean offer(OutboundSseEvent event, long bytes) {
        boolean fellBehind = false;
        boolean startWriter = false;
        synchronized (this) {
            if (ended) {
                return false;
            }
            if (!queue.isEmpty() && queuedBytes + bytes > maxQueuedBytes) {
                fellBehind = true;
                ended = true;
                queue.clear();
                queuedBytes = 0;
            } else {
                queue.addLast(new Queued(event, bytes));
                queuedBytes += bytes;
                startWriter = !writing;
                writing = true;
            }
        }
        if (fellBehind) {
            LOG.warn("Event stream of topic {} dropped: its client fell more than {} bytes of events behind (it reads"
                    + " slower than broadcasts arrive, or not at all); it may reconnect, and misses what was sent"
                    + " meanwhile", topic, maxQueuedBytes);
            shutDown(true);
            return false;
        }
        return !startWriter || startWriter();
    }

    /** Queues a keep-alive comment unless events are waiting or being written (they keep the stream busy anyway). */
    void keepAlive(OutboundSseEvent comment) {
        synchronized (this) {
            if (ended || writing) {
                return;
            }
        }
        offer(comment, 0);
    }

    /** Ends the stream (the service is stopping, or the subscriber has gone). */
    void close() {
        synchronized (this) {
            if (ended) {
                return;
            }
            ended = true;
            queue.clear();
            queuedBytes = 0;
        }
        shutDown(false);
    }

    private boolean startWriter() {
        try {
            writers.execute(this::write);
            return true;
        } catch (RejectedExecutionException stopping) {
            close();
            return false;
        }
    }

    /** On a writer: sends queued events until the queue is empty. */
    private void write() {
        while (true) {
            Queued next;
            synchronized (this) {
                next = queue.pollFirst();
                if (next == null || ended) {
                    writing = false;
                    return;
                }
                queuedBytes -= next.bytes();
            }
            if (!send(next.event())) {
                close(); // the client has gone
                return;
            }
        }
    }

    private boolean send(OutboundSseEvent event) {
        if (sink.isClosed()) {
            return false;
        }
        try {
            // Jersey writes on this thread, and answers a failed write with a completed stage and a closed sink.
            sink.send(event);
        } catch (RuntimeException closed) {
            return false;
        }
        return !sink.isClosed();
    }

    /** Aborts the connection and closes the sink, off the caller's thread: either may block on a stuck client. */
    private void shutDown(boolean dropped) {
        listener.ended(this, dropped);
        Runnable end = () -> {
            if (dropped) {
                try {
                    abortConnection.run();
                } catch (RuntimeException e) {
                    LOG.debug("Aborting the connection of a dropped event stream failed", e);
                }
            }
            try {
                sink.close();
            } catch (RuntimeException e) {
                LOG.debug("Closing an event stream failed", e);
            }
        };
        try {
            writers.execute(end);
        } catch (RejectedExecutionException stopping) {
            Thread thread = new Thread(end, "delayq-sse-close");
            thread.setDaemon(true);
            thread.start();
        }
    }
}
