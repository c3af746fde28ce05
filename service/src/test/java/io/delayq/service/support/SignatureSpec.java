package io.delayq.service.support;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * The receiver's check of {@code Delayq-Signature}, written out from the documented scheme and independent of the
 * service's signer: {@code t=<unix seconds>,v2=<hex>[,v2=<hex>…]}, each {@code v2} the HMAC-SHA256, with a shared
 * secret, of the bytes {@code "v2\n" + kind + "\n" + topic + "\n" + id + "\n" + attempt + "\n" + t + "\n"} (UTF-8)
 * followed by the body exactly as received; {@code kind} is {@code callback} or {@code dead}; compared in constant
 * time; {@code t} within 300 s of now.
 */
public final class SignatureSpec {
    public static final String CALLBACK = "callback";
    public static final String DEAD = "dead";

    private SignatureSpec() {
    }

    /** Whether {@code header} signs these fields and body with {@code secret}, and is fresh at {@code nowSeconds}. */
    public static boolean verifies(String secret, String header, String kind, String topic, String id,
                                   String attempt, byte[] body, long nowSeconds) {
        if (header == null) {
            return false;
        }
        Long t = null;
        List<byte[]> candidates = new ArrayList<>();
        for (String part : header.split(",")) {
            String[] kv = part.trim().split("=", 2);
            if (kv.length != 2) {
                return false;
            }
            if (kv[0].equals("t")) {
                t = Long.parseLong(kv[1]);
            } else if (kv[0].equals("v2")) {
                candidates.add(HexFormat.of().parseHex(kv[1]));
            }
        }
        if (t == null || candidates.isEmpty() || Math.abs(nowSeconds - t) > 300) {
            return false;
        }
        byte[] expected = mac(secret, signed(kind, topic, id, attempt, t, body));
        return candidates.stream().anyMatch(c -> MessageDigest.isEqual(expected, c));
    }

    /** As {@link #verifies(String, String, String, String, String, String, byte[], long)} at the current time. */
    public static boolean verifies(String secret, String header, String kind, String topic, String id,
                                   String attempt, byte[] body) {
        return verifies(secret, header, kind, topic, id, attempt, body, System.currentTimeMillis() / 1_000);
    }

    /** The signed bytes. */
    public static byte[] signed(String kind, String topic, String id, String attempt, long t, byte[] body) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(("v2\n" + kind + "\n" + topic + "\n" + id + "\n" + attempt + "\n" + t + "\n")
                .getBytes(StandardCharsets.UTF_8));
        out.writeBytes(body);
        return out.toByteArray();
    }

    public static byte[] mac(String secret, byte[] data) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            return mac.doFinal(data);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}
