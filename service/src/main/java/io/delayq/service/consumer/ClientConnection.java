package io.delayq.service.consumer;

import jakarta.servlet.http.HttpServletRequest;
import org.eclipse.jetty.ee10.servlet.ServletContextRequest;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.io.SocketChannelEndPoint;
import org.eclipse.jetty.server.Request;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * The network connection of one request, as Jetty holds it: a long poll asks whether its client is still there
 * before jobs are leased for it, and an event stream that cannot keep up is cut off through it. JAX-RS has no
 * portable way to do either (its {@code ConnectionCallback} fires only when a write fails, and the first write to a
 * closed connection usually succeeds), so this reaches for Jetty's own request; under another container it knows
 * nothing and says the client is there.
 *
 * <p>Jetty itself does not read from a connection while its request is being handled, so it does not see a client
 * that closed the connection during a long poll. {@link #isOpen()} therefore looks: a non-blocking read of one byte
 * from the socket answers end of stream (the client closed), an error (it reset), or nothing (it waits). An HTTP/1.1
 * client sends nothing more before its answer unless it pipelines; such a byte cannot be given back to Jetty, so the
 * connection is then closed after the answer ({@link #mustCloseAfterAnswer()}) and the client re-sends its next
 * request, as pipelining clients must be ready to.
 */
final class ClientConnection {
    private static final Logger LOG = LoggerFactory.getLogger(ClientConnection.class);
    /** A connection this class cannot see: always "open", never aborted. */
    static final ClientConnection UNKNOWN = new ClientConnection(null, null, null);

    private final Request request;
    private final EndPoint endPoint;
    /** The socket of a plain HTTP/1.x connection, which can be probed; null otherwise (TLS, HTTP/2: not probed). */
    private final SocketChannel socket;
    private boolean readAhead; // guarded by this

    private ClientConnection(Request request, EndPoint endPoint, SocketChannel socket) {
        this.request = request;
        this.endPoint = endPoint;
        this.socket = socket;
    }

    /** The connection of {@code request}; call it on the request's own thread. */
    static ClientConnection of(HttpServletRequest request) {
        try {
            ServletContextRequest jetty = request == null ? null : ServletContextRequest.getServletContextRequest(request);
            if (jetty == null) {
                return UNKNOWN;
            }
            EndPoint endPoint = jetty.getConnectionMetaData().getConnection().getEndPoint();
            HttpVersion version = jetty.getConnectionMetaData().getHttpVersion();
            SocketChannel socket = endPoint instanceof SocketChannelEndPoint plain
                    && (version == HttpVersion.HTTP_1_1 || version == HttpVersion.HTTP_1_0) ? plain.getChannel() : null;
            return new ClientConnection(jetty, endPoint, socket);
        } catch (RuntimeException | LinkageError e) {
            LOG.debug("the connection of a request cannot be seen; its client is assumed to stay", e);
            return UNKNOWN;
        }
    }

    /** False when the client has closed or reset the connection (looked at now, see the class comment). */
    synchronized boolean isOpen() {
        if (endPoint == null) {
            return true;
        }
        if (!endPoint.isOpen() || endPoint.isInputShutdown()) {
            return false;
        }
        if (socket == null || readAhead || endPoint.isFillInterested()) {
            return true; // not probed: Jetty reads this connection itself, or a byte was already read ahead
        }
        try {
            int read = socket.read(ByteBuffer.allocate(1));
            if (read < 0) {
                return false;
            }
            readAhead = read > 0;
            return true;
        } catch (IOException reset) {
            return false;
        }
    }

    /** Whether the answer must close the connection: a byte of the client's next request was read by the probe. */
    synchronized boolean mustCloseAfterAnswer() {
        return readAhead;
    }

    /**
     * Runs {@code gone} (on a Jetty thread) when Jetty sees the request's connection fail or close while the request
     * is in progress (an idle timeout, a failed write, the server closing it). A listener on the request, not on the
     * connection, so that a keep-alive connection serving poll after poll does not collect one per poll.
     */
    void onGone(Runnable gone) {
        if (request != null) {
            request.addFailureListener(failure -> gone.run());
        }
    }

    /** Closes the connection at once; a write blocked on it fails. */
    void abort() {
        if (endPoint != null) {
            endPoint.close();
        }
    }
}
