package io.delayq.core;

import java.nio.charset.StandardCharsets;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.UUID;

/**
 * The token of one lease: whoever presents it may ack, nack or extend that lease, and nobody else. So a token is 128
 * bits from a CSPRNG, drawn for that lease alone: holding one token (a callback's {@code Delayq-Lease-Token}) tells
 * nothing about any other (issue 26, finding 8: the tokens of one reserve used to share a random base).
 *
 * <p>Its text, on the wire and in the Redis record, is the 128 bits as 22 characters of base64url without padding
 * (URL- and header-safe, 10 characters shorter than hex). A token issued before 128-bit tokens (a 64-bit number,
 * written in decimal, at most 19 digits, so never 22 characters) is still read, so that a lease in flight across the
 * upgrade can be acked with the token its holder was given: {@link #isLegacy()}; nothing issues such tokens any more.
 *
 * <p>Tokens are drawn by {@link #random(int)} / {@link #randomBits(int)} in the service, not by the store's server:
 * Lua has no CSPRNG and PostgreSQL's {@code random()} is not one. Each thread has its own {@code DRBG}
 * {@link SecureRandom} (seeded from the operating system's entropy), so that reserving threads do not wait for one
 * another's {@code synchronized} draws, and a reserve of n jobs draws its 16·n bytes in one call (one draw of 1,600
 * bytes costs about what four draws of 16 bytes do).
 *
 * @param text the token as its holder presents it: 22 characters of base64url, or a legacy token's decimal digits
 */
public record LeaseToken(String text) {
    /** Characters of a token's text. */
    public static final int LENGTH = 22;
    /** Bytes of a token's value. */
    public static final int BYTES = 16;

    private static final byte[] ALPHABET =
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".getBytes(StandardCharsets.US_ASCII);
    private static final ThreadLocal<SecureRandom> RANDOM = ThreadLocal.withInitial(LeaseToken::newRandom);

    /** @throws IllegalArgumentException when {@code text} is not a token in its canonical form (see {@link #parse}) */
    public LeaseToken {
        if (!isCanonical(text)) {
            throw new IllegalArgumentException(describe(text) + " is not a lease token in its canonical form");
        }
    }

    /**
     * A token as a client sent it: surrounding white space ignored; a legacy token's number in any form
     * {@link Long#parseLong} reads (as the versions that issued them read it).
     *
     * @throws IllegalArgumentException when it is not a token's form, so no lease ever had it
     */
    public static LeaseToken parse(String text) {
        String t = text == null ? "" : text.strip();
        if (t.length() == LENGTH && isCanonical(t)) {
            return new LeaseToken(t);
        }
        if (t.length() < LENGTH) {
            try {
                return new LeaseToken(Long.toString(Long.parseLong(t)));
            } catch (NumberFormatException e) {
                // not a legacy token either
            }
        }
        throw new IllegalArgumentException(describe(text) + " is not a lease token (22 characters of base64url, or"
                + " the decimal number of a lease made before 128-bit tokens)");
    }

    /** A new token. */
    public static LeaseToken random() {
        return random(1).get(0);
    }

    /** {@code count} new tokens, independent of each other and of every token before. */
    public static List<LeaseToken> random(int count) {
        String texts = randomTexts(count);
        List<LeaseToken> tokens = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            tokens.add(new LeaseToken(texts.substring(i * LENGTH, (i + 1) * LENGTH)));
        }
        return tokens;
    }

    /**
     * The texts of {@code count} new tokens, {@value #LENGTH} characters each, one after the other: for a store that
     * hands them to its server as one string (storage-redis's reserve script), encoded straight from the drawn bytes
     * without a {@code LeaseToken} or a {@code String} per token (a reserve of 100 draws 100, whatever is due).
     */
    public static String randomTexts(int count) {
        byte[] bits = randomBits(count);
        byte[] text = new byte[count * LENGTH];
        for (int i = 0; i < count; i++) {
            encode(bits, i * BYTES, text, i * LENGTH);
        }
        return new String(text, StandardCharsets.ISO_8859_1);
    }

    /**
     * The values of {@code count} new tokens, {@value #BYTES} bytes each, one after the other: for a store that writes
     * the value (PostgreSQL's {@code uuid}) and reads the token back with {@link #of(UUID)}.
     */
    public static byte[] randomBits(int count) {
        if (count < 0) {
            throw new IllegalArgumentException("count must not be negative");
        }
        byte[] bits = new byte[count * BYTES];
        RANDOM.get().nextBytes(bits);
        return bits;
    }

    /** The token whose value is {@code bits[offset]} to {@code bits[offset + 15]}. */
    public static LeaseToken of(byte[] bits, int offset) {
        byte[] text = new byte[LENGTH];
        encode(bits, offset, text, 0);
        return new LeaseToken(new String(text, StandardCharsets.ISO_8859_1));
    }

    /** The token whose value is {@code value}'s 128 bits. */
    public static LeaseToken of(UUID value) {
        byte[] bits = new byte[BYTES];
        putLong(bits, 0, value.getMostSignificantBits());
        putLong(bits, 8, value.getLeastSignificantBits());
        return of(bits, 0);
    }

    /** Whether the token was issued before 128-bit tokens: a 64-bit number, its text in decimal. */
    public boolean isLegacy() {
        return text.length() != LENGTH;
    }

    /**
     * The token's 128 bits, {@value #BYTES} bytes, most significant first; a legacy token's are its 64-bit number,
     * zero-extended (the high 64 bits 0), as storage-postgres's V12 migration converted the tokens of leases in flight.
     */
    public byte[] bits() {
        if (isLegacy()) {
            byte[] bits = new byte[BYTES];
            putLong(bits, 8, Long.parseLong(text));
            return bits;
        }
        return Base64.getUrlDecoder().decode(text);
    }

    /** The token's 128 bits ({@link #bits()}) as a {@link UUID}'s. */
    public UUID toUuid() {
        byte[] bits = bits();
        return new UUID(getLong(bits, 0), getLong(bits, 8));
    }

    /** The text, as the holder presents it. */
    @Override
    public String toString() {
        return text;
    }

    /**
     * 22 characters of base64url whose last one carries no bits beyond the 128th (so one value has one text), or
     * a legacy token's decimal as {@link Long#toString} writes it.
     */
    private static boolean isCanonical(String text) {
        if (text == null) {
            return false;
        }
        if (text.length() == LENGTH) {
            for (int i = 0; i < LENGTH; i++) {
                if (sextet(text.charAt(i)) < 0) {
                    return false;
                }
            }
            // 22 characters hold 132 bits: the last one's low 4 bits are padding, 0
            return (sextet(text.charAt(LENGTH - 1)) & 0x0f) == 0;
        }
        if (text.isEmpty() || text.length() > 20) {
            return false;
        }
        try {
            return Long.toString(Long.parseLong(text)).equals(text);
        } catch (NumberFormatException e) {
            return false;
        }
    }

    /** Base64url without padding of {@code bits[from..from + 15]} into {@code text[at..at + 21]}. */
    private static void encode(byte[] bits, int from, byte[] text, int at) {
        int b = from;
        int t = at;
        for (int group = 0; group < 5; group++) {
            int v = (bits[b++] & 0xff) << 16 | (bits[b++] & 0xff) << 8 | (bits[b++] & 0xff);
            text[t++] = ALPHABET[v >>> 18];
            text[t++] = ALPHABET[(v >>> 12) & 0x3f];
            text[t++] = ALPHABET[(v >>> 6) & 0x3f];
            text[t++] = ALPHABET[v & 0x3f];
        }
        int last = bits[b] & 0xff;
        text[t++] = ALPHABET[last >>> 2];
        text[t] = ALPHABET[(last & 0x03) << 4];
    }

    private static int sextet(char c) {
        if (c >= 'A' && c <= 'Z') {
            return c - 'A';
        }
        if (c >= 'a' && c <= 'z') {
            return c - 'a' + 26;
        }
        if (c >= '0' && c <= '9') {
            return c - '0' + 52;
        }
        return c == '-' ? 62 : c == '_' ? 63 : -1;
    }

    /** What a message may quote of a text a client sent: not all of a very long one. */
    private static String describe(String text) {
        if (text == null) {
            return "null";
        }
        return "'" + (text.length() <= 40 ? text : text.substring(0, 40) + "…") + "'";
    }

    private static SecureRandom newRandom() {
        try {
            return SecureRandom.getInstance("DRBG");
        } catch (NoSuchAlgorithmException e) {
            return new SecureRandom();
        }
    }

    private static void putLong(byte[] bytes, int offset, long value) {
        for (int i = 7; i >= 0; i--) {
            bytes[offset + i] = (byte) value;
            value >>>= 8;
        }
    }

    private static long getLong(byte[] bytes, int offset) {
        long value = 0;
        for (int i = 0; i < 8; i++) {
            value = (value << 8) | (bytes[offset + i] & 0xff);
        }
        return value;
    }
}
