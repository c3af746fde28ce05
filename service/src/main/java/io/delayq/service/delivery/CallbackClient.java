package io.delayq.service.delivery;

import org.eclipse.jetty.client.BytesRequestContent;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.client.Response;
import org.eclipse.jetty.client.Result;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.util.Promise;
import org.eclipse.jetty.util.SocketAddressResolver;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.regex.Pattern;

/**
 * The delivery engine's HTTP client: Jetty's non-blocking {@link HttpClient} (HTTP/1.1, keep-alive, no redirects,
 * no content decoding), so a callback in flight holds a connection and a slot, not a thread.
 *
 * <p>Addresses are checked when a connection is made: the resolver runs the {@link CallbackGuard} over every address
 * a callback host resolves to, so a name re-pointed at a refused range since the job was accepted is refused then,
 * on the address actually connected to. Name lookups run on a small pool of their own (they may block); literal
 * addresses are checked inline.
 *
 * <p>The answer comes back on one of the client's threads through {@link #post}'s callback, with the status, the
 * {@code Retry-After} header and the first {@value #SNIPPET_BYTES} bytes of a non-2xx body (the rest is read and
 * dropped, so a huge answer costs no memory and the connection stays reusable).
 *
 * <p>Public for the dead-notice sender ({@code io.delayq.service.notice}), which posts through the same guarded
 * client so that notices obey the same address rules as callbacks.
 */
public final class CallbackClient {
    static final int SNIPPET_BYTES = 256;

    /**
     * What a callback answered: a status (then {@code failure} is null) or a failure (no answer: refused, timed out,
     * connection lost, address refused by the guard).
     *
     * @param snippet    the start of a non-2xx body, whitespace collapsed; empty for 2xx
     * @param retryAfter the {@code Retry-After} header, or null
     * @param asyncAck   the {@code Delayq-Async-Ack} header, or null: a receiver's "I confirm later" on its 202
     * @param noRetry    the {@code Delayq-No-Retry} header, or null: a receiver's "don't try this job again"
     */
    public record Answer(int status, String snippet, String retryAfter, Throwable failure, String asyncAck,
                         String noRetry) {
        /** An answer without a {@code Delayq-Async-Ack} header, or no answer. */
        public Answer(int status, String snippet, String retryAfter, Throwable failure) {
            this(status, snippet, retryAfter, failure, null, null);
        }

        /** An answer without a {@code Delayq-No-Retry} header. */
        public Answer(int status, String snippet, String retryAfter, Throwable failure, String asyncAck) {
            this(status, snippet, retryAfter, failure, asyncAck, null);
        }

        /** Whether the receiver said {@code Delayq-No-Retry: true}. */
        public boolean saysNoRetry() {
            return noRetry != null && "true".equalsIgnoreCase(noRetry.trim());
        }

        public boolean is2xx() {
            return failure == null && status >= 200 && status < 300;
        }
    }

    /** The header by which a receiver's {@code 202} says "I take the job and confirm it later through ack/nack". */
    public static final String ASYNC_ACK = "Delayq-Async-Ack";

    /** The header by which a receiver's error answer says "this job cannot succeed: do not retry it" (issue 29). */
    public static final String NO_RETRY = "Delayq-No-Retry";

    private final HttpClient http = new HttpClient();
    private final ExecutorService dns;

    /**
     * @param maxConnections  connections at most to one callback host and port (the engine's concurrency bound)
     * @param connectTimeoutMs how long opening a connection may take
     */
    public CallbackClient(int maxConnections, long connectTimeoutMs, CallbackGuard guard) {
        QueuedThreadPool threads = new QueuedThreadPool(Math.max(8, Runtime.getRuntime().availableProcessors() * 4), 2);
        threads.setName("delayq-callbacks");
        threads.setDaemon(true);
        http.setExecutor(threads);
        http.setFollowRedirects(false);
        http.setConnectTimeout(connectTimeoutMs);
        http.setIdleTimeout(TimeUnit.MINUTES.toMillis(1));
        http.setMaxConnectionsPerDestination(maxConnections);
        http.setMaxRequestsQueuedPerDestination(Math.max(1_024, maxConnections * 4));
        http.setUserAgentField(new HttpField(HttpHeader.USER_AGENT, "delayq"));
        http.getContentDecoderFactories().clear(); // the snippet is text for a person; no Accept-Encoding: gzip
        ThreadPoolExecutor lookups = new ThreadPoolExecutor(4, 4, 60, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
                Threads.named("delayq-callbacks-dns", true));
        lookups.allowCoreThreadTimeOut(true);
        this.dns = lookups;
        http.setSocketAddressResolver(new GuardedResolver(guard, dns));
    }

    public void start() {
        try {
            http.start();
        } catch (Exception e) {
            throw new IllegalStateException("could not start the callback HTTP client: " + e, e);
        }
    }

    /** Aborts whatever is in flight (each gets a failed answer) and releases connections and threads. */
    public void stop() {
        try {
            http.stop();
        } catch (Exception e) {
            // stopping anyway
        } finally {
            dns.shutdownNow();
        }
    }

    /**
     * POSTs {@code body} as {@code application/json} with {@code headers}; {@code done} gets the answer once, on a
     * client thread (it must not block).
     *
     * @throws IllegalArgumentException when a header cannot be sent (nothing was sent)
     */
    public void post(URI uri, Map<String, String> headers, byte[] body, long timeoutMs, Consumer<Answer> done) {
        Request request = http.newRequest(uri)
                .method(HttpMethod.POST)
                .timeout(timeoutMs, TimeUnit.MILLISECONDS)
                .body(new BytesRequestContent("application/json", body))
                .headers(h -> headers.forEach(h::put));
        request.send(new Snippet(done));
    }

    /**
     * Reads the answer: status and Retry-After, and the start of a non-2xx body. A 2xx answer, nearly every one,
     * costs no buffer and no text: the snippet is only for failures.
     */
    private static final class Snippet implements Response.Listener {
        private static final Pattern WHITESPACE = Pattern.compile("\\s+");
        private final Consumer<Answer> done;
        private byte[] prefix;
        private int length;

        Snippet(Consumer<Answer> done) {
            this.done = done;
        }

        @Override
        public void onContent(Response response, ByteBuffer content) {
            if (response.getStatus() / 100 != 2) {
                if (prefix == null) {
                    prefix = new byte[SNIPPET_BYTES];
                }
                int take = Math.min(content.remaining(), SNIPPET_BYTES - length);
                content.get(prefix, length, take);
                length += take;
            }
            content.position(content.limit());
        }

        @Override
        public void onComplete(Result result) {
            Response response = result.getResponse();
            if (result.isFailed()) {
                done.accept(new Answer(response == null ? 0 : response.getStatus(), "", null, result.getFailure()));
                return;
            }
            String text = length == 0 ? ""
                    : WHITESPACE.matcher(new String(prefix, 0, length, StandardCharsets.UTF_8).strip()).replaceAll(" ");
            done.accept(new Answer(response.getStatus(), text, response.getHeaders().get(HttpHeader.RETRY_AFTER), null,
                    response.getHeaders().get(ASYNC_ACK), response.getHeaders().get(NO_RETRY)));
        }
    }

    /** Resolves callback hosts and refuses addresses the guard refuses, on the connection actually made. */
    private static final class GuardedResolver implements SocketAddressResolver {
        private final CallbackGuard guard;
        private final ExecutorService dns;

        GuardedResolver(CallbackGuard guard, ExecutorService dns) {
            this.guard = guard;
            this.dns = dns;
        }

        @Override
        public void resolve(String host, int port, Map<String, Object> context, Promise<List<InetSocketAddress>> promise) {
            String name = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
            if (CallbackGuard.isAddressLiteral(name)) {
                resolveNow(name, port, promise); // an address literal: no lookup
                return;
            }
            try {
                dns.execute(() -> resolveNow(name, port, promise));
            } catch (RuntimeException stopping) {
                promise.failed(stopping);
            }
        }

        private void resolveNow(String host, int port, Promise<List<InetSocketAddress>> promise) {
            try {
                List<InetSocketAddress> out = new ArrayList<>();
                for (InetAddress address : guard.resolve(host, port)) {
                    out.add(new InetSocketAddress(address, port));
                }
                promise.succeeded(out);
            } catch (RuntimeException refusedOrUnknown) {
                promise.failed(refusedOrUnknown);
            }
        }
    }
}
