package io.delayq.service.consumer;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delayq.core.Job;
import io.delayq.core.StoreListener;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.sse.OutboundSseEvent;
import jakarta.ws.rs.sse.Sse;
import jakarta.ws.rs.sse.SseBroadcaster;
import jakarta.ws.rs.sse.SseEventSink;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Fans broadcast jobs out to this instance's event-stream subscribers, one {@link SseBroadcaster} per topic. The store
 * delivers every broadcast to every instance ({@link StoreListener#onBroadcast}), so each subscriber hears each
 * broadcast of its topic once, whichever instance it is connected to. Subscribers that are not connected when a
 * broadcast is sent do not get it later.
 *
 * <p>Idle streams get a comment every {@link #KEEP_ALIVE_SECONDS} s so that proxies do not cut them, and so that
 * dead connections are noticed and dropped.
 */
final class BroadcastHub implements StoreListener, AutoCloseable {
    static final long KEEP_ALIVE_SECONDS = 15;
    private static final Logger LOG = LoggerFactory.getLogger(BroadcastHub.class);

    private final ObjectMapper mapper;
    private final Map<String, Topic> topics = new ConcurrentHashMap<>();
    private final ScheduledExecutorService keepAlive;
    private volatile Sse sse;
    private volatile boolean closed;

    BroadcastHub(ObjectMapper mapper) {
        this(mapper, TimeUnit.SECONDS.toMillis(KEEP_ALIVE_SECONDS));
    }

    BroadcastHub(ObjectMapper mapper, long keepAliveMs) {
        this.mapper = mapper;
        AtomicInteger threads = new AtomicInteger();
        this.keepAlive = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "delayq-sse-keepalive-" + threads.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        keepAlive.scheduleWithFixedDelay(this::keepAlive, keepAliveMs, keepAliveMs, TimeUnit.MILLISECONDS);
    }

    /** Adds a subscriber to a topic and greets it with a comment, so it knows its stream is open. */
    void subscribe(String topic, SseEventSink sink, Sse sse) {
        if (closed) {
            sink.close(); // shutting down: the client reconnects to another instance
            return;
        }
        this.sse = sse;
        topics.computeIfAbsent(topic, name -> new Topic(sse.newBroadcaster())).broadcaster.register(sink);
        sink.send(sse.newEventBuilder().comment("subscribed to " + topic).build());
    }

    @Override
    public void onWake(String topic, long dueAt) {
        // Wake-ups concern leases and push delivery, not event streams.
    }

    @Override
    public void onBroadcast(Job job) {
        Topic t = topics.get(job.topic());
        Sse current = sse;
        if (t == null || current == null) {
            return;
        }
        String data;
        try {
            data = mapper.writeValueAsString(BroadcastEvent.of(job));
        } catch (JsonProcessingException e) {
            LOG.error("Broadcast job {} could not be written as JSON; its subscribers miss it", job.ref(), e);
            return;
        }
        OutboundSseEvent event = current.newEventBuilder()
                .name("job")
                .id(job.id())
                .mediaType(MediaType.APPLICATION_JSON_TYPE)
                .data(String.class, data)
                .build();
        t.broadcaster.broadcast(event);
    }

    private void keepAlive() {
        Sse current = sse;
        if (current == null) {
            return;
        }
        try {
            OutboundSseEvent ping = current.newEventBuilder().comment("keep-alive").build();
            for (Topic t : topics.values()) {
                t.broadcaster.broadcast(ping);
            }
        } catch (RuntimeException e) {
            LOG.warn("Sending keep-alive comments to event streams failed", e);
        }
    }

    /** Closes every stream; clients reconnect to another instance. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        keepAlive.shutdownNow();
        for (Topic t : topics.values()) {
            t.broadcaster.close();
        }
    }

    private static final class Topic {
        final SseBroadcaster broadcaster;

        Topic(SseBroadcaster broadcaster) {
            this.broadcaster = broadcaster;
            broadcaster.onError((sink, error) -> {
                // A write failed: the subscriber has gone. Closing the sink makes the broadcaster drop it.
                if (!sink.isClosed()) {
                    sink.close();
                }
            });
        }
    }
}
