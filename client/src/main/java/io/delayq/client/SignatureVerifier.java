package io.delayq.client;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.UnaryOperator;

/**
 * Checks that a callback or a dead notice came from delayq and says what it seems to: the {@code Delayq-Signature}
 * header, scheme {@code v2}. Use it in the receiver before acting on a request, with the raw body bytes exactly as
 * received (before any JSON parsing):
 *
 * <pre>{@code
 * SignatureVerifier verifier = SignatureVerifier.of(System.getenv("DELAYQ_SIGNING_SECRET"));
 * SignatureVerifier.Verified v = verifier.verifyCallback(request::getHeader, bodyBytes); // throws when not genuine
 * if (!v.topic().equals("orders")) { reject(); }            // a genuine request of another topic: not yours
 * process(v.id(), v.attempt(), bodyBytes);                  // deduplicate on id (and attempt)
 * }</pre>
 *
 * The header is {@code t=<unix seconds>,v2=<hex>[,v2=<hex>…]}; each {@code v2} is the lower-case hex HMAC-SHA256, with
 * a shared secret (UTF-8), of {@code "v2\n" + kind + "\n" + topic + "\n" + id + "\n" + attempt + "\n" + t + "\n"}
 * (UTF-8) followed by the body bytes. {@code kind} is {@code callback} for a callback and {@code dead} for a dead
 * notice: it is the verifier's own expectation (the endpoint knows what it receives), never read from the request.
 * {@code topic}, {@code id} and {@code attempt} come from {@code Delayq-Topic}, {@code Delayq-Id} and
 * {@code Delayq-Attempt} (a callback) or {@code Delayq-Notice-Attempt} (a notice). A request verifies when one
 * {@code v2} matches one of the secrets (compared in constant time) and {@code t} is within the tolerance (5 minutes
 * unless set) of the receiver's clock. Several secrets are accepted so that a receiver can move to a new secret while
 * delayq still signs with the old one. Immutable and thread-safe.
 */
public final class SignatureVerifier {
    public static final String SIGNATURE = "Delayq-Signature";
    public static final Duration DEFAULT_TOLERANCE = Duration.ofMinutes(5);
    private static final HexFormat HEX = HexFormat.of();

    /** What a request is; the receiver says which it expects. */
    public enum Kind {
        CALLBACK("callback", "Delayq-Attempt"),
        DEAD_NOTICE("dead", "Delayq-Notice-Attempt");

        private final String word;
        private final String attemptHeader;

        Kind(String word, String attemptHeader) {
            this.word = word;
            this.attemptHeader = attemptHeader;
        }

        /** The word in the signed bytes (and in {@code Delayq-Event}). */
        public String word() {
            return word;
        }
    }

    /**
     * What a verified request vouches for.
     *
     * @param attempt  the callback's attempt (1 for the first) or the notice's own attempt
     * @param signedAt when delayq signed it
     */
    public record Verified(Kind kind, String topic, String id, int attempt, Instant signedAt) {
    }

    /** A request that is not a genuine delayq request of the expected kind; the message says why. */
    public static final class InvalidSignatureException extends RuntimeException {
        InvalidSignatureException(String message) {
            super(message);
        }
    }

    private final List<byte[]> secrets;
    private final Duration tolerance;
    private final Clock clock;

    private SignatureVerifier(List<byte[]> secrets, Duration tolerance, Clock clock) {
        this.secrets = secrets;
        this.tolerance = tolerance;
        this.clock = clock;
    }

    /** A verifier accepting a signature by any of {@code secrets} (delayq's {@code delivery.signingSecret}). */
    public static SignatureVerifier of(String... secrets) {
        return of(List.of(secrets));
    }

    /** As {@link #of(String...)}. */
    public static SignatureVerifier of(List<String> secrets) {
        if (secrets.isEmpty()) {
            throw new IllegalArgumentException("at least one secret is needed");
        }
        List<byte[]> keys = new ArrayList<>();
        for (String secret : secrets) {
            if (secret == null || secret.isEmpty()) {
                throw new IllegalArgumentException("a secret must not be empty");
            }
            keys.add(secret.getBytes(StandardCharsets.UTF_8));
        }
        return new SignatureVerifier(List.copyOf(keys), DEFAULT_TOLERANCE, Clock.systemUTC());
    }

    /** How far {@code t} may be from this receiver's clock, either way; default 5 minutes. */
    public SignatureVerifier tolerance(Duration tolerance) {
        if (tolerance.isNegative()) {
            throw new IllegalArgumentException("the tolerance must not be negative");
        }
        return new SignatureVerifier(secrets, tolerance, clock);
    }

    /** The receiver's clock (tests). */
    public SignatureVerifier clock(Clock clock) {
        return new SignatureVerifier(secrets, tolerance, Objects.requireNonNull(clock));
    }

    /**
     * Verifies a callback.
     *
     * @param headers the request's header by name (any case: pass your framework's lookup, e.g.
     *                {@code request::getHeader}); null when absent
     * @param body    the body bytes exactly as received
     * @throws InvalidSignatureException when it is not a genuine, fresh delayq callback
     */
    public Verified verifyCallback(UnaryOperator<String> headers, byte[] body) {
        return verify(Kind.CALLBACK, headers, body);
    }

    /** As {@link #verifyCallback}, for a dead notice (an {@code onDead} target's request). */
    public Verified verifyDeadNotice(UnaryOperator<String> headers, byte[] body) {
        return verify(Kind.DEAD_NOTICE, headers, body);
    }

    /** As {@link #verifyCallback(UnaryOperator, byte[])} with the headers as a map (names in any case). */
    public Verified verifyCallback(Map<String, String> headers, byte[] body) {
        return verify(Kind.CALLBACK, lookup(headers), body);
    }

    /** As {@link #verifyDeadNotice(UnaryOperator, byte[])} with the headers as a map (names in any case). */
    public Verified verifyDeadNotice(Map<String, String> headers, byte[] body) {
        return verify(Kind.DEAD_NOTICE, lookup(headers), body);
    }

    /** As {@link #verify(Kind, UnaryOperator, byte[])} with the headers as a map (names in any case). */
    public Verified verify(Kind kind, Map<String, String> headers, byte[] body) {
        return verify(kind, lookup(headers), body);
    }

    /** Verifies a request of the kind the receiver expects. */
    public Verified verify(Kind kind, UnaryOperator<String> headers, byte[] body) {
        return verify(kind, headers.apply("Delayq-Topic"), headers.apply("Delayq-Id"),
                headers.apply(kind.attemptHeader), headers.apply(SIGNATURE), body);
    }

    /**
     * Verifies the fields of a request taken out of it by the caller.
     *
     * @param attempt the attempt header's value as received
     */
    public Verified verify(Kind kind, String topic, String id, String attempt, String signature, byte[] body) {
        if (topic == null || id == null || attempt == null || signature == null || body == null) {
            throw new InvalidSignatureException("not a delayq " + kind.word + " request: Delayq-Topic, Delayq-Id, "
                    + kind.attemptHeader + ", " + SIGNATURE + " and a body are needed");
        }
        int number;
        try {
            number = Integer.parseInt(attempt.trim());
        } catch (NumberFormatException e) {
            throw new InvalidSignatureException(kind.attemptHeader + " is not a number");
        }
        Long t = null;
        List<byte[]> candidates = new ArrayList<>();
        for (String part : signature.split(",")) {
            String p = part.trim();
            try {
                if (p.startsWith("t=")) {
                    t = Long.parseLong(p.substring(2));
                } else if (p.startsWith("v2=")) {
                    candidates.add(HEX.parseHex(p.substring(3)));
                }
            } catch (IllegalArgumentException malformed) {
                throw new InvalidSignatureException(SIGNATURE + " is malformed");
            }
        }
        if (t == null || candidates.isEmpty()) {
            throw new InvalidSignatureException(SIGNATURE + " has no t= or no v2= (scheme v1 is no longer sent)");
        }
        long now = clock.instant().getEpochSecond();
        if (Math.abs(now - t) > tolerance.toSeconds()) {
            throw new InvalidSignatureException("the signature's time is more than " + tolerance.toSeconds()
                    + " s from this receiver's clock: a replay, or a clock to fix");
        }
        byte[] signed = ("v2\n" + kind.word + "\n" + topic + "\n" + id + "\n" + attempt.trim() + "\n" + t + "\n")
                .getBytes(StandardCharsets.UTF_8);
        for (byte[] secret : secrets) {
            byte[] expected = mac(secret, signed, body);
            for (byte[] candidate : candidates) {
                if (MessageDigest.isEqual(expected, candidate)) {
                    return new Verified(kind, topic, id, number, Instant.ofEpochSecond(t));
                }
            }
        }
        throw new InvalidSignatureException("no v2 signature matches: not signed by delayq with this secret, or not "
                + "this " + kind.word + " (another id, topic, attempt or kind, or an altered body)");
    }

    private static UnaryOperator<String> lookup(Map<String, String> headers) {
        Map<String, String> byName = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        byName.putAll(headers);
        return byName::get;
    }

    private static byte[] mac(byte[] secret, byte[] signed, byte[] body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret, "HmacSHA256"));
            mac.update(signed);
            return mac.doFinal(body);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is part of every JRE", e);
        }
    }
}
