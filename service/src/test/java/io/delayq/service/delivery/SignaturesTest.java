package io.delayq.service.delivery;

import org.junit.jupiter.api.Test;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SignaturesTest {
    private static final byte[] BODY = "{\"a\":1}".getBytes(StandardCharsets.UTF_8);

    @Test
    void signsTimestampDotBodyWithHmacSha256() throws Exception {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec("k".getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
        String expected = HexFormat.of().formatHex(mac.doFinal("1700000000.{\"a\":1}".getBytes(StandardCharsets.UTF_8)));

        assertThat(Signatures.sign("k", 1_700_000_000L, BODY)).isEqualTo("t=1700000000,v1=" + expected);
    }

    @Test
    void verifiesWithinToleranceOnly() {
        String header = Signatures.sign("k", 1_000L, BODY);
        assertThat(Signatures.verify("k", header, BODY, 300, 1_100L)).isTrue();
        assertThat(Signatures.verify("k", header, BODY, 300, 1_400L)).isFalse();
        assertThat(Signatures.verify("k", header, BODY, 0, 99_999L)).isTrue();
        assertThat(Signatures.verify("other", header, BODY, 300, 1_000L)).isFalse();
        assertThat(Signatures.verify("k", header, "{\"a\":2}".getBytes(StandardCharsets.UTF_8), 300, 1_000L)).isFalse();
    }

    @Test
    void acceptsAnyMatchingV1AndRejectsMalformedHeaders() {
        String good = Signatures.sign("k", 1_000L, BODY);
        String rotated = "t=1000,v1=" + "00".repeat(32) + "," + good.substring(good.indexOf("v1="));
        assertThat(Signatures.verify("k", rotated, BODY, 300, 1_000L)).isTrue();
        assertThat(Signatures.verify("k", null, BODY, 300, 1_000L)).isFalse();
        assertThat(Signatures.verify("k", "v1=abc", BODY, 300, 1_000L)).isFalse();
        assertThat(Signatures.verify("k", "t=x,v1=zz", BODY, 300, 1_000L)).isFalse();
        assertThat(Signatures.verify("k", "t=1000", BODY, 300, 1_000L)).isFalse();
    }

    @Test
    void emptySecretIsRefused() {
        assertThatThrownBy(() -> new Signatures("")).hasMessageContaining("signingSecret");
    }
}
