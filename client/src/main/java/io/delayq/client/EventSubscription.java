package io.delayq.client;

import com.fasterxml.jackson.databind.ObjectMapper;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiFunction;
import java.util.function.Consumer;

/**
 * An open event stream of one topic ({@link DelayqClient#subscribe}). Reads Server-Sent Events and hands each
 * {@code event: job} to the listener; comments (keep-alives) are skipped. Close it to disconnect.
 */
public final class EventSubscription implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(EventSubscription.class.getName());

    private final SseLines lines;
    private final CompletableFuture<HttpResponse<Void>> exchange;

    private EventSubscription(SseLines lines, CompletableFuture<HttpResponse<Void>> exchange) {
        this.lines = lines;
        this.exchange = exchange;
    }

    static EventSubscription open(HttpClient http, HttpRequest request, ObjectMapper mapper,
                                  Consumer<BroadcastEvent> onEvent, Consumer<Throwable> onClosed, Duration timeout,
                                  BiFunction<Integer, byte[], DelayqException> problem) {
        CompletableFuture<Void> opened = new CompletableFuture<>();
        SseLines lines = new SseLines(mapper, onEvent, onClosed);
        HttpResponse.BodyHandler<Void> handler = info -> {
            if (info.statusCode() == 200) {
                opened.complete(null);
                return HttpResponse.BodySubscribers.fromLineSubscriber(lines, s -> null, StandardCharsets.UTF_8, null);
            }
            return HttpResponse.BodySubscribers.mapping(HttpResponse.BodySubscribers.ofByteArray(), body -> {
                opened.completeExceptionally(problem.apply(info.statusCode(), body));
                return null;
            });
        };
        CompletableFuture<HttpResponse<Void>> exchange = http.sendAsync(request, handler);
        exchange.whenComplete((response, error) -> {
            if (error != null) {
                opened.completeExceptionally(error);
                lines.closed(error);
            }
        });
        EventSubscription subscription = new EventSubscription(lines, exchange);
        try {
            opened.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            return subscription;
        } catch (ExecutionException e) {
            subscription.close();
            if (e.getCause() instanceof DelayqException refused) {
                throw refused;
            }
            throw new DelayqException("subscribing to " + request.uri() + " failed: " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            subscription.close();
            throw new DelayqException("the service did not open " + request.uri() + " within " + timeout, e);
        } catch (InterruptedException e) {
            subscription.close();
            Thread.currentThread().interrupt();
            throw new DelayqException("subscribing to " + request.uri() + " was interrupted", e);
        }
    }

    /** Disconnects; the listener gets no more events. */
    @Override
    public void close() {
        lines.cancel();
        exchange.cancel(true);
    }

    /** Parses the event-stream format line by line (WHATWG HTML, "Server-sent events"). */
    private static final class SseLines implements Flow.Subscriber<String> {
        private final ObjectMapper mapper;
        private final Consumer<BroadcastEvent> onEvent;
        private final Consumer<Throwable> onClosed;
        private final AtomicBoolean closed = new AtomicBoolean();
        private volatile Flow.Subscription subscription;
        private final StringBuilder data = new StringBuilder();
        private String event;

        SseLines(ObjectMapper mapper, Consumer<BroadcastEvent> onEvent, Consumer<Throwable> onClosed) {
            this.mapper = mapper;
            this.onEvent = onEvent;
            this.onClosed = onClosed;
        }

        @Override
        public void onSubscribe(Flow.Subscription s) {
            subscription = s;
            if (closed.get()) {
                s.cancel();
            } else {
                s.request(Long.MAX_VALUE);
            }
        }

        @Override
        public void onNext(String line) {
            if (line.isEmpty()) {
                dispatch();
            } else if (line.startsWith(":")) {
                return; // a comment: keep-alive or greeting
            } else {
                int colon = line.indexOf(':');
                String field = colon < 0 ? line : line.substring(0, colon);
                String value = colon < 0 ? "" : line.substring(colon + 1);
                if (value.startsWith(" ")) {
                    value = value.substring(1);
                }
                switch (field) {
                    case "event" -> event = value;
                    case "data" -> data.append(value).append('\n');
                    default -> { } // id, retry: not needed to hand the job over
                }
            }
        }

        private void dispatch() {
            String name = event;
            String json = data.toString();
            event = null;
            data.setLength(0);
            if (json.isEmpty() || (name != null && !name.equals("job")) || closed.get()) {
                return;
            }
            try {
                onEvent.accept(mapper.readValue(json, BroadcastEvent.class));
            } catch (Exception e) {
                LOG.log(System.Logger.Level.WARNING, "A broadcast event could not be handled: " + json, e);
            }
        }

        @Override
        public void onError(Throwable error) {
            closed(error);
        }

        @Override
        public void onComplete() {
            closed(null);
        }

        void closed(Throwable error) {
            if (closed.compareAndSet(false, true) && onClosed != null) {
                onClosed.accept(error);
            }
        }

        void cancel() {
            closed(null);
            Flow.Subscription s = subscription;
            if (s != null) {
                s.cancel();
            }
        }
    }
}
