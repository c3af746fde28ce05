package io.delayq.core;

import java.util.regex.Pattern;

/**
 * A producer's W3C Trace Context (https://www.w3.org/TR/trace-context/), stored with its job so that the trace
 * continues across the delay: every callback attempt, lease and broadcast of the job carries it on.
 *
 * <p>Not part of {@link NewJob#fingerprint()}: a producer that retries an enqueue sends a new span id each time, and
 * the retry must stay an idempotent repeat.
 *
 * @param traceparent {@code 00-<trace id: 32 hex>-<parent id: 16 hex>-<flags: 2 hex>}, lowercase, ids not all zero
 * @param tracestate  the vendors' list as it came (at most {@value #MAX_TRACESTATE} printable ASCII characters), or
 *                    {@code null}
 */
public record TraceContext(String traceparent, String tracestate) {
    /** The longest tracestate kept: W3C asks every vendor to propagate at least this much. */
    public static final int MAX_TRACESTATE = 512;

    private static final Pattern TRACEPARENT = Pattern.compile("00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}");
    private static final Pattern PRINTABLE = Pattern.compile("[\\x20-\\x7e]*");

    public TraceContext {
        if (!isValidTraceparent(traceparent)) {
            throw new IllegalArgumentException("traceparent must be 00-<32 lowercase hex, not all 0>-<16 lowercase "
                    + "hex, not all 0>-<2 hex> (W3C Trace Context), not '" + traceparent + "'");
        }
        if (tracestate != null && !isValidTracestate(tracestate)) {
            throw new IllegalArgumentException("tracestate must be at most " + MAX_TRACESTATE
                    + " printable ASCII characters");
        }
        if (tracestate != null && tracestate.isBlank()) {
            tracestate = null;
        }
    }

    /**
     * The context of a request's headers, or {@code null} when it has none to continue: no traceparent, or one that is
     * not valid, which W3C tells a receiver to ignore (it restarts the trace) rather than refuse. A tracestate without a
     * valid traceparent is dropped with it, and one longer than {@value #MAX_TRACESTATE} characters (or not printable
     * ASCII) is dropped alone, as W3C allows.
     */
    public static TraceContext fromHeaders(String traceparent, String tracestate) {
        if (traceparent == null) {
            return null;
        }
        String parent = traceparent.strip();
        if (!isValidTraceparent(parent)) {
            return null;
        }
        String state = tracestate == null ? null : tracestate.strip();
        return new TraceContext(parent, state != null && isValidTracestate(state) ? state : null);
    }

    public static boolean isValidTraceparent(String traceparent) {
        return traceparent != null && TRACEPARENT.matcher(traceparent).matches()
                && !isZero(traceparent, 3, 35) && !isZero(traceparent, 36, 52);
    }

    private static boolean isValidTracestate(String tracestate) {
        return tracestate.length() <= MAX_TRACESTATE && PRINTABLE.matcher(tracestate).matches();
    }

    /** The trace id: 32 hex digits. */
    public String traceId() {
        return traceparent.substring(3, 35);
    }

    /** The caller's span id: 16 hex digits. */
    public String parentId() {
        return traceparent.substring(36, 52);
    }

    /** The trace flags: 2 hex digits ({@code 01} = sampled). */
    public String flags() {
        return traceparent.substring(53, 55);
    }

    private static boolean isZero(String s, int from, int to) {
        for (int i = from; i < to; i++) {
            if (s.charAt(i) != '0') {
                return false;
            }
        }
        return true;
    }
}
