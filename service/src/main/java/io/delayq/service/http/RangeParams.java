package io.delayq.service.http;

/** Range checks of whole-number query parameters ({@link StrictParams} has already refused what is not a number). */
public final class RangeParams {
    private RangeParams() {
    }

    /** {@code value}, or {@code fallback} when absent; 422 (IllegalArgumentException) outside {@code min..max}. */
    public static int inRange(String name, Integer value, int fallback, int min, int max) {
        int v = value == null ? fallback : value;
        if (v < min || v > max) {
            throw new IllegalArgumentException(name + " is " + v + "; use " + min + " to " + max);
        }
        return v;
    }
}
