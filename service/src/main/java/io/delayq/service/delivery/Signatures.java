package io.delayq.service.delivery;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;

/**
 * The {@code Delayq-Signature} header of a callback and of a dead notice, scheme {@code v2}:
 * <pre>
 * Delayq-Signature: t=&lt;unix seconds&gt;,v2=&lt;hex HMAC-SHA256&gt;[,v2=&lt;hex&gt;…]
 * </pre>
 * Each {@code v2} is the lower-case hex HMAC-SHA256, with one of the signing secrets (UTF-8), of these bytes:
 * <pre>
 * "v2" LF kind LF topic LF id LF attempt LF t LF body
 * </pre>
 * {@code kind} is {@code callback} or {@code dead} (a dead notice), {@code topic} and {@code id} the job's (ASCII:
 * letters, digits and {@code . _ - :}, never a line feed), {@code attempt} the decimal attempt number sent in the same
 * request ({@code Delayq-Attempt} for a callback, {@code Delayq-Notice-Attempt} for a notice), {@code t} the decimal
 * timestamp of the header, LF a single byte 0x0A, and {@code body} the request body exactly as sent. So a signature
 * vouches for what a receiver acts on: a captured request replayed under another id, attempt or topic, or a callback
 * passed off as a dead notice, no longer verifies. Receivers compare in constant time, accept any one matching
 * {@code v2}, and refuse a {@code t} more than 300 s from their clock.
 *
 * <p>One {@code v2} per secret: the signer takes a list so that a secret can be rotated (sign with old and new while
 * receivers move over) without a new scheme: a tenant's topics are signed with the tenant's secrets (both during a rotation), other topics
 * with {@code delivery.signingSecret} ({@link TopicSigners}). The scheme
 * {@code v1} (HMAC over {@code "<t>." + body} alone) is no longer sent. Receivers verify with the Java client's
 * {@code io.delayq.client.SignatureVerifier} or the Python and Node snippets of the documentation.
 */
public final class Signatures {
    public static final String HEADER = "Delayq-Signature";
    /** The header naming the kind of request, the same word as in the signed bytes. */
    public static final String EVENT = "Delayq-Event";
    private static final String ALGORITHM = "HmacSHA256";
    private static final HexFormat HEX = HexFormat.of();

    /** What a signed request is; its word is part of the signed bytes. */
    public enum Kind {
        CALLBACK("callback"),
        DEAD_NOTICE("dead");

        private final String word;

        Kind(String word) {
            this.word = word;
        }

        /** The word in the signed bytes and in {@code Delayq-Event}. */
        public String word() {
            return word;
        }
    }

    private final List<SecretKeySpec> keys;
    // Mac instances are not thread-safe and costly to look up; one per thread and secret is the cheap way to share.
    private final ThreadLocal<Mac[]> macs;

    /** A signer for one secret, reusable from any thread. */
    public Signatures(String secret) {
        this(List.of(Objects.requireNonNull(secret, "secret")));
    }

    /**
     * A signer that signs with every secret, one {@code v2} each, in order.
     *
     * @throws IllegalArgumentException when the list or a secret is empty
     */
    public Signatures(List<String> secrets) {
        if (secrets.isEmpty()) {
            throw new IllegalArgumentException("at least one signing secret is needed (delivery.signingSecret)");
        }
        List<SecretKeySpec> specs = new ArrayList<>(secrets.size());
        for (String secret : secrets) {
            if (secret == null || secret.isEmpty()) {
                throw new IllegalArgumentException("the signing secret must not be empty (delivery.signingSecret)");
            }
            specs.add(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), ALGORITHM));
        }
        this.keys = List.copyOf(specs);
        this.macs = ThreadLocal.withInitial(this::newMacs);
    }

    /**
     * The header value for a request signed at {@code epochSeconds}.
     *
     * @param attempt the attempt number sent in the same request ({@code Delayq-Attempt} or
     *                {@code Delayq-Notice-Attempt})
     */
    public String header(Kind kind, String topic, String id, int attempt, long epochSeconds, byte[] body) {
        byte[] head = signedHead(kind, topic, id, attempt, epochSeconds);
        StringBuilder header = new StringBuilder(12 + 68 * keys.size()).append("t=").append(epochSeconds);
        for (Mac mac : macs.get()) {
            mac.update(head);
            header.append(",v2=").append(HEX.formatHex(mac.doFinal(body)));
        }
        return header.toString();
    }

    /** The bytes signed before the body: {@code "v2\n<kind>\n<topic>\n<id>\n<attempt>\n<t>\n"} in UTF-8. */
    static byte[] signedHead(Kind kind, String topic, String id, int attempt, long epochSeconds) {
        for (String field : new String[]{topic, id}) {
            if (field.indexOf('\n') >= 0) {
                throw new IllegalArgumentException("a signed topic or id cannot contain a line feed");
            }
        }
        return ("v2\n" + kind.word() + "\n" + topic + "\n" + id + "\n" + attempt + "\n" + epochSeconds + "\n")
                .getBytes(StandardCharsets.UTF_8);
    }

    private Mac[] newMacs() {
        try {
            Mac[] out = new Mac[keys.size()];
            for (int i = 0; i < out.length; i++) {
                out[i] = Mac.getInstance(ALGORITHM);
                out[i].init(keys.get(i));
            }
            return out;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is part of every JRE", e);
        }
    }
}
