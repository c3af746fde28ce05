package io.delayq.service.http;

import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.ext.ReaderInterceptor;
import jakarta.ws.rs.ext.ReaderInterceptorContext;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * Refuses request bodies larger than {@code limits.maxRequestBytes} with 413, before they are parsed into memory:
 * from {@code Content-Length} when the client sends one, else while reading.
 *
 * <p>A body up to {@value #DRAIN_FACTOR}× the limit is read to its end and dropped before the 413 goes out: a server
 * that answers and closes while the client is still sending makes the client's TCP stack reset the connection, and
 * the client sees "connection reset" instead of the problem saying what to fix. Larger bodies are cut off at once.
 */
public final class RequestSizeLimit implements ReaderInterceptor {
    static final int DRAIN_FACTOR = 4;

    private final long maxBytes;

    public RequestSizeLimit(long maxBytes) {
        this.maxBytes = maxBytes;
    }

    @Override
    public Object aroundReadFrom(ReaderInterceptorContext context) throws IOException {
        String length = context.getHeaders().getFirst(HttpHeaders.CONTENT_LENGTH);
        if (length != null) {
            long declared;
            try {
                declared = Long.parseLong(length.trim());
            } catch (NumberFormatException e) {
                declared = -1;
                // A malformed Content-Length is Jetty's to refuse; the stream below still counts.
            }
            if (declared > maxBytes) {
                if (declared <= maxBytes * DRAIN_FACTOR) {
                    discardRest(context.getInputStream(), 0);
                }
                throw tooLarge();
            }
        }
        context.setInputStream(new Limited(context.getInputStream()));
        return context.proceed();
    }

    private TooLarge tooLarge() {
        return new TooLarge("The request body is larger than " + maxBytes
                + " bytes (limits.maxRequestBytes); send fewer jobs per batch");
    }

    /**
     * Thrown while the body is read. A parser may wrap it (Jackson does, in a JsonMappingException), so the problem
     * mappers look for it among the causes.
     */
    public static final class TooLarge extends WebApplicationException {
        TooLarge(String message) {
            super(message, 413);
        }
    }

    private final class Limited extends FilterInputStream {
        private long read;

        Limited(InputStream in) {
            super(in);
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            if (b >= 0) {
                count(1);
            }
            return b;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            int n = super.read(buffer, offset, length);
            if (n > 0) {
                count(n);
            }
            return n;
        }

        private void count(int n) {
            read += n;
            if (read > maxBytes) {
                discardRest(in, read);
                throw tooLarge();
            }
        }
    }

    /** Reads and drops the rest of a body of which {@code read} bytes are read, up to {@value #DRAIN_FACTOR}× the limit. */
    private void discardRest(InputStream in, long read) {
        long budget = maxBytes * DRAIN_FACTOR - read;
        if (budget <= 0) {
            return;
        }
        byte[] sink = new byte[8192];
        try {
            int n;
            while (budget > 0 && (n = in.read(sink, 0, (int) Math.min(sink.length, budget))) > 0) {
                budget -= n;
            }
        } catch (IOException e) {
            // the client went away: nothing left to answer
        }
    }
}
