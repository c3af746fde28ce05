package io.delayq.service.config;

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
 */
public final class RequestSizeLimit implements ReaderInterceptor {
    private final long maxBytes;

    public RequestSizeLimit(long maxBytes) {
        this.maxBytes = maxBytes;
    }

    @Override
    public Object aroundReadFrom(ReaderInterceptorContext context) throws IOException {
        String length = context.getHeaders().getFirst(HttpHeaders.CONTENT_LENGTH);
        if (length != null) {
            try {
                if (Long.parseLong(length.trim()) > maxBytes) {
                    throw tooLarge();
                }
            } catch (NumberFormatException e) {
                // A malformed Content-Length is Jetty's to refuse; the stream below still counts.
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
                throw tooLarge();
            }
        }
    }
}
