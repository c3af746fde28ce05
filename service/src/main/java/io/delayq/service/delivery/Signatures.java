package io.delayq.service.delivery;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Objects;

/**
 * The {@code Delayq-Signature} header of a push delivery: {@code t=<unix seconds>,v1=<hex HMAC-SHA256>} where the MAC
 * is computed with the configured {@code delivery.signingSecret} over the bytes of {@code "<t>."} followed by the exact
 * request body. Receivers recompute it to know the request came from delayq and was not altered, and reject old
 * timestamps to make a captured request useless later.
 *
 * <pre>{@code
 * boolean ok = Signatures.verify(secret, request.header("Delayq-Signature"), bodyBytes, 300, Instant.now().getEpochSecond());
 * }</pre>
 *
 * Several {@code v1=} entries may appear (e.g. during a secret rotation); one matching entry is enough.
 */
public final class Signatures {
    public static final String HEADER = "Delayq-Signature";
    private static final String ALGORITHM = "HmacSHA256";
    private static final HexFormat HEX = HexFormat.of();

    private final SecretKeySpec key;
    // Mac instances are not thread-safe and costly to look up; one per thread is the cheap way to share a key.
    private final ThreadLocal<Mac> macs;

    /** A signer for one secret, reusable from any thread. */
    public Signatures(String secret) {
        Objects.requireNonNull(secret, "secret");
        if (secret.isEmpty()) {
            throw new IllegalArgumentException("the signing secret must not be empty (delivery.signingSecret)");
        }
        this.key = new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), ALGORITHM);
        this.macs = ThreadLocal.withInitial(this::newMac);
    }

    /** The header value for {@code body} signed at {@code epochSeconds}. */
    public String header(long epochSeconds, byte[] body) {
        return "t=" + epochSeconds + ",v1=" + HEX.formatHex(mac(epochSeconds, body));
    }

    /** Signs with {@code secret}: the value of the {@code Delayq-Signature} header. */
    public static String sign(String secret, long epochSeconds, byte[] body) {
        return new Signatures(secret).header(epochSeconds, body);
    }

    /**
     * Checks a {@code Delayq-Signature} header value.
     *
     * @param secret           the shared secret
     * @param header           the header value as received, may be {@code null}
     * @param body             the request body exactly as received
     * @param toleranceSeconds how far the signature's timestamp may be from {@code nowSeconds}; {@code <= 0} skips the
     *                         check
     * @param nowSeconds       the receiver's clock, unix seconds
     * @return true when the header is well formed, its timestamp is within tolerance and one {@code v1} matches
     */
    public static boolean verify(String secret, String header, byte[] body, long toleranceSeconds, long nowSeconds) {
        return new Signatures(secret).verify(header, body, toleranceSeconds, nowSeconds);
    }

    /** As {@link #verify(String, String, byte[], long, long)} with this instance's secret. */
    public boolean verify(String header, byte[] body, long toleranceSeconds, long nowSeconds) {
        if (header == null || body == null) {
            return false;
        }
        Long timestamp = null;
        var candidates = new java.util.ArrayList<byte[]>(1);
        for (String part : header.split(",")) {
            String p = part.trim();
            try {
                if (p.startsWith("t=")) {
                    timestamp = Long.parseLong(p.substring(2));
                } else if (p.startsWith("v1=")) {
                    candidates.add(HEX.parseHex(p.substring(3)));
                }
            } catch (IllegalArgumentException malformed) {
                return false;
            }
        }
        if (timestamp == null || candidates.isEmpty()) {
            return false;
        }
        if (toleranceSeconds > 0 && Math.abs(nowSeconds - timestamp) > toleranceSeconds) {
            return false;
        }
        byte[] expected = mac(timestamp, body);
        for (byte[] candidate : candidates) {
            if (MessageDigest.isEqual(expected, candidate)) {
                return true;
            }
        }
        return false;
    }

    private byte[] mac(long epochSeconds, byte[] body) {
        Mac mac = macs.get();
        mac.update((epochSeconds + ".").getBytes(StandardCharsets.US_ASCII));
        return mac.doFinal(body);
    }

    private Mac newMac() {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(key);
            return mac;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is part of every JRE", e);
        }
    }
}
