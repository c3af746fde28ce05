package io.delayq.service.notice;

import io.delayq.service.delivery.CallbackClient;

import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.util.concurrent.TimeoutException;

/** How a failed notice attempt is described on the dead letter ({@code notice.lastError}) and in the log. */
final class NoticeFailures {
    /** At most this much of an answer's body is kept in the error. */
    private static final int SNIPPET_CHARS = 200;

    private NoticeFailures() {
    }

    /**
     * An attempt that got an answer other than 2xx, or none.
     *
     * @param withBody whether to quote the start of the answer's body (the job's topic sets {@code errorBodies})
     */
    static String describe(CallbackClient.Answer answer, long timeoutMs, boolean withBody) {
        if (answer.failure() == null) {
            String snippet = withBody ? answer.snippet() : "";
            if (snippet.length() > SNIPPET_CHARS) {
                snippet = snippet.substring(0, SNIPPET_CHARS) + "…";
            }
            return "the onDead target answered HTTP " + answer.status() + (snippet.isEmpty() ? "" : ": " + snippet);
        }
        return describe(answer.failure(), timeoutMs);
    }

    /** An attempt that got no answer: the HTTP client's failure (a cause chain). */
    static String describe(Throwable error, long timeoutMs) {
        for (Throwable e = error; e != null; e = e.getCause() == e ? null : e.getCause()) {
            if (e instanceof IllegalArgumentException refused) {
                return "onDead: " + refused.getMessage(); // the guard refused the target, or its address
            }
            if (e instanceof UnknownHostException unknown) {
                return "the onDead target's host does not resolve: " + unknown.getMessage();
            }
            if (e instanceof TimeoutException) {
                return "the onDead target did not answer within " + timeoutMs + " ms";
            }
            if (e instanceof SocketTimeoutException) {
                return "could not connect to the onDead target within " + timeoutMs + " ms";
            }
            if (e instanceof ConnectException) {
                return "could not connect to the onDead target: "
                        + (e.getMessage() == null ? "connection refused" : e.getMessage());
            }
        }
        String message = error.getMessage() == null ? error.getClass().getSimpleName() : error.getMessage();
        return "the onDead request failed: " + (error instanceof IOException ? message : error.toString());
    }
}
