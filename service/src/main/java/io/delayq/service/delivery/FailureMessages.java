package io.delayq.service.delivery;

import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.util.concurrent.TimeoutException;

/** How an attempt that got no answer is described in the job's history ({@code lastError}). */
final class FailureMessages {
    private FailureMessages() {
    }

    /**
     * @param error     why the HTTP client gave up (a cause chain)
     * @param timeoutMs the attempt's HTTP timeout, named in a timeout's message
     */
    static String describe(Throwable error, long timeoutMs) {
        for (Throwable e = error; e != null; e = e.getCause() == e ? null : e.getCause()) {
            if (e instanceof IllegalArgumentException refused) {
                return refused.getMessage(); // the guard refused the address the callback host resolved to
            }
            if (e instanceof UnknownHostException unknown) {
                return unknown.getMessage();
            }
            if (e instanceof TimeoutException) {
                return "the callback did not answer within " + timeoutMs + " ms";
            }
            if (e instanceof SocketTimeoutException) {
                return "could not connect to the callback within " + timeoutMs + " ms";
            }
            if (e instanceof ConnectException) {
                return "could not connect to the callback: "
                        + (e.getMessage() == null ? "connection refused" : e.getMessage());
            }
        }
        if (error instanceof IOException) {
            return "the callback request failed: "
                    + (error.getMessage() == null ? error.getClass().getSimpleName() : error.getMessage());
        }
        return "the callback request failed: " + error;
    }
}
