package io.delayq.service.delivery;

import io.delayq.service.delivery.Signatures.Kind;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The v2 scheme byte for byte: the expected values were computed apart from this code, with Python's {@code hmac}
 * over the documented string ({@code hmac.new(b"k", b"v2\ncallback\norders\norder-42\n3\n1700000000\n{\"a\":1}",
 * hashlib.sha256).hexdigest()}).
 */
class SignaturesTest {
    private static final byte[] BODY = "{\"a\":1}".getBytes(StandardCharsets.UTF_8);

    @Test
    void signsKindTopicIdAttemptTimeAndBody() {
        assertThat(new Signatures("k").header(Kind.CALLBACK, "orders", "order-42", 3, 1_700_000_000L, BODY))
                .isEqualTo("t=1700000000,v2=6247f87e5d292347dc0f8b040f16a5178b6d4effa7a6e68d486554cc32a216ca");
        assertThat(new Signatures("k").header(Kind.DEAD_NOTICE, "orders", "order-42", 1, 1_700_000_000L, BODY))
                .isEqualTo("t=1700000000,v2=76d9a328fdd742d39e8b84e265692427ef8af86b965f3770f9290be4440c2933");
    }

    @Test
    void oneV2PerSecretInOrderForARotation() {
        assertThat(new Signatures(List.of("k", "k2")).header(Kind.CALLBACK, "orders", "order-42", 3, 1_700_000_000L,
                BODY)).isEqualTo("t=1700000000"
                + ",v2=6247f87e5d292347dc0f8b040f16a5178b6d4effa7a6e68d486554cc32a216ca"
                + ",v2=543390740ff8469833a692f471b4fe7e685f4f4e158f45704d12621d528bdf6c");
    }

    @Test
    void emptySecretsAreRefused() {
        assertThatThrownBy(() -> new Signatures("")).hasMessageContaining("signingSecret");
        assertThatThrownBy(() -> new Signatures(List.of())).hasMessageContaining("signingSecret");
        assertThatThrownBy(() -> new Signatures(List.of("k", ""))).hasMessageContaining("signingSecret");
    }
}
