package io.delayq.core.archive;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * The position a dead-letter listing continues after: the ({@code deadAt}, {@code key}) of the last letter seen, as
 * an opaque base64url string. Listings are ordered by that pair descending, so the next page is everything below it;
 * a position, not an offset, so that letters arriving or leaving meanwhile neither shift nor repeat items.
 *
 * <p>Defined here rather than by each archive so that a caller walking a listing (a bulk replay stopping part-way
 * through a page) can name the position after any letter it has, not only after the last one of a page.
 *
 * @param deadAt epoch ms of the last letter seen
 * @param key    its {@link DeadLetter#key()}
 */
public record DeadLetterCursor(long deadAt, String key) {

    /** The cursor of the position just after {@code letter}. */
    public static String after(DeadLetter letter) {
        return encode(letter.deadAt(), letter.key());
    }

    public static String encode(long deadAt, String key) {
        return Base64.getUrlEncoder().withoutPadding()
                .encodeToString((deadAt + "|" + key).getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Reads a cursor handed out by {@link #encode}.
     *
     * @throws IllegalArgumentException with a message for the caller when it is not one
     */
    public static DeadLetterCursor decode(String cursor) {
        try {
            String text = new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.UTF_8);
            int bar = text.indexOf('|');
            return new DeadLetterCursor(Long.parseLong(text.substring(0, bar)), text.substring(bar + 1));
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("cursor is not one this service handed out;"
                    + " pass the nextCursor of the previous answer unchanged, or none to start from the newest");
        }
    }
}
