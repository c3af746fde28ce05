package io.delayq.service.consumer;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.Meter;
import com.codahale.metrics.MetricRegistry;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delayq.core.Job;
import io.delayq.core.StoreListener;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.sse.OutboundSseEvent;
import jakarta.ws.rs.sse.Sse;
import jakarta.ws.rs.sse.SseEventSink;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Fans broadcast jobs out to this instance's event-stream subscribers. The store delivers every broadcast to every
 * instance ({@link StoreListener#onBroadcast}), so each subscriber hears each broadcast of its topic once, whichever
 * instance it is connected to. Subscribers that are not connected when a broadcast is sent do not get it later.
 *
 * <p>{@link #onBroadcast} runs on the store's notification thread, which also delivers every wake-up of the delivery
 * engine and of parked long polls, so it must never wait for a client: it only queues the event for each
 * {@link SseSubscriber}, whose own writer sends it. A client that does not keep up (more than
 * {@link #MAX_QUEUED_BYTES} of events waiting) is dropped, logged and counted
 * ({@code delayq.consumer.sse.dropped}), instead of holding anything else up.
 *
 * <p>Idle streams get a comment every {@link #KEEP_ALIVE_SECONDS} s so that proxies do not cut them, and so that
 * dead connections are noticed and dropped.
 */
final class BroadcastHub implements StoreListener, AutoCloseable {
    static final long KEEP_ALIVE_SECONDS = 15;
    /** How far one subscriber may fall behind: 64 events of the largest default payload. */
    static final long MAX_QUEUED_BYTES = 4L * 1024 * 1024;
    private static final Logger LOG = LoggerFactory.getLogger(BroadcastHub.class);

    private final ObjectMapper mapper;
    private final long maxQueuedBytes;
    private final Map<String, Set<SseSubscriber>> topics = new ConcurrentHashMap<>();
    private final ScheduledExecutorService keepAlive;
    private final ThreadPoolExecutor writers;
    private final Meter dropped;
    private final Meter refused;
    private final int maxStreams;
    /** Streams open now, counted when accepted and when ended: the limit holds under concurrent subscribes. */
    private final AtomicInteger open = new AtomicInteger();
    private volatile Sse sse;
    private volatile boolean closed;

    /**
     * @param keepAliveMs    how often idle streams get a comment
     * @param maxQueuedBytes how far one subscriber may fall behind before it is dropped
     * @param maxStreams     streams open at once; one more is refused (429)
     * @param writerThreads  threads writing to streams
     */
    BroadcastHub(ObjectMapper mapper, MetricRegistry metrics, long keepAliveMs, long maxQueuedBytes, int maxStreams,
                 int writerThreads) {
        this.mapper = mapper;
        this.maxQueuedBytes = maxQueuedBytes;
        this.maxStreams = maxStreams;
        AtomicInteger threads = new AtomicInteger();
        this.keepAlive = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "delayq-sse-keepalive-" + threads.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        // A bounded pool: a stream with a write under way holds a thread, the others wait their turn in the queue (at
        // most one task per stream). A client that stops reading holds its thread until its write fails or it falls
        // maxQueuedBytes behind and is dropped (its connection aborted), so stuck clients cannot take every thread
        // for long, and many streams cannot make the service start thousands of threads.
        AtomicInteger threadCount = new AtomicInteger();
        ThreadPoolExecutor pool = new ThreadPoolExecutor(writerThreads, writerThreads, 60, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(), r -> {
                    Thread t = new Thread(r, "delayq-sse-writer-" + threadCount.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                });
        pool.allowCoreThreadTimeOut(true);
        this.writers = pool;
        this.refused = metrics.meter(MetricRegistry.name("delayq", "consumer", "sse", "refused"));
        this.dropped = metrics.meter(MetricRegistry.name("delayq", "consumer", "sse", "dropped"));
        metrics.gauge(MetricRegistry.name("delayq", "consumer", "sse", "subscribers"),
                () -> (Gauge<Integer>) this::subscribers);
        keepAlive.scheduleWithFixedDelay(this::keepAlive, keepAliveMs, keepAliveMs, TimeUnit.MILLISECONDS);
    }

    /**
     * Adds a subscriber to a topic and greets it with a comment, so it knows its stream is open.
     *
     * @param abortConnection closes the client's connection at once (used when it is dropped for falling behind)
     */
    void subscribe(String topic, SseEventSink sink, Sse sse, Runnable abortConnection) {
        if (closed) {
            sink.close(); // shutting down: the client reconnects to another instance
            return;
        }
        if (open.incrementAndGet() > maxStreams) {
            open.decrementAndGet();
            refused.mark();
            throw new TooManyConsumers("this instance has " + maxStreams + " event streams open, its limit"
                    + " (consumer.maxEventStreams); connect again after Retry-After, or to another instance");
        }
        this.sse = sse;
        SseSubscriber subscriber = new SseSubscriber(topic, sink, abortConnection, writers, maxQueuedBytes,
                this::ended);
        topics.compute(topic, (name, subscribers) -> {
            Set<SseSubscriber> set = subscribers != null ? subscribers : ConcurrentHashMap.newKeySet();
            set.add(subscriber);
            return set;
        });
        subscriber.offer(sse.newEventBuilder().comment("subscribed to " + topic).build(), 0);
        if (closed) {
            subscriber.close(); // close() may have missed it
        }
    }

    @Override
    public void onWake(String topic, long dueAt) {
        // Wake-ups concern leases and push delivery, not event streams.
    }

    /** On the store's notification thread: queues the event for each subscriber of the topic, never waits. */
    @Override
    public void onBroadcast(Job job) {
        Set<SseSubscriber> subscribers = topics.get(job.topic());
        Sse current = sse;
        if (subscribers == null || subscribers.isEmpty() || current == null) {
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
        long bytes = data.getBytes(StandardCharsets.UTF_8).length;
        for (SseSubscriber subscriber : subscribers) {
            subscriber.offer(event, bytes);
        }
    }

    int subscribers() {
        return topics.values().stream().mapToInt(Set::size).sum();
    }

    private void ended(SseSubscriber subscriber, boolean fellBehind) {
        open.decrementAndGet();
        // atomic with subscribe's compute, so that a topic without subscribers leaves no entry behind
        topics.computeIfPresent(subscriber.topic, (name, subscribers) -> {
            subscribers.remove(subscriber);
            return subscribers.isEmpty() ? null : subscribers;
        });
        if (fellBehind) {
            dropped.mark();
        }
    }

    private void keepAlive() {
        Sse current = sse;
        if (current == null) {
            return;
        }
        try {
            OutboundSseEvent ping = current.newEventBuilder().comment("keep-alive").build();
            for (Set<SseSubscriber> subscribers : topics.values()) {
                for (SseSubscriber subscriber : subscribers) {
                    subscriber.keepAlive(ping);
                }
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
        for (Set<SseSubscriber> subscribers : topics.values()) {
            for (SseSubscriber subscriber : subscribers) {
                subscriber.close();
            }
        }
        writers.shutdown(); // the closes just queued still run; a write stuck on a client ends with its connection
    }
}
