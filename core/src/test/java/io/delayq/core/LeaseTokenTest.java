package io.delayq.core;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LeaseTokenTest {

    @Test
    void aTokenIs22CharactersOfBase64urlFor128Bits() {
        List<LeaseToken> tokens = LeaseToken.random(1_000);

        assertThat(tokens).hasSize(1_000).allSatisfy(t -> {
            assertThat(t.text()).matches("[A-Za-z0-9_-]{22}");
            assertThat(t.isLegacy()).isFalse();
            assertThat(LeaseToken.parse(t.text())).isEqualTo(t);
            assertThat(LeaseToken.of(t.toUuid())).as("the text and the 128 bits are one value").isEqualTo(t);
            assertThat(Base64.getUrlEncoder().withoutPadding().encodeToString(t.bits())).isEqualTo(t.text());
            assertThat(t).hasToString(t.text());
        });
        assertThat(new HashSet<>(tokens)).hasSize(1_000);
    }

    @Test
    void theValueIsTheBytesInOrder() {
        byte[] bits = new byte[32];
        for (int i = 0; i < bits.length; i++) {
            bits[i] = (byte) (i * 17);
        }

        LeaseToken second = LeaseToken.of(bits, 16);

        assertThat(second.toUuid()).isEqualTo(new UUID(0x1021324354657687L, 0x98a9bacbdcedfe0fL));
        assertThat(LeaseToken.of(new UUID(0, 0))).hasToString("AAAAAAAAAAAAAAAAAAAAAA");
        assertThat(LeaseToken.of(new UUID(-1, -1))).hasToString("_____________________w");
        assertThat(LeaseToken.of(bits, 16).text())
                .isEqualTo(Base64.getUrlEncoder().withoutPadding().encodeToString(Arrays.copyOfRange(bits, 16, 32)));
        assertThat(LeaseToken.randomBits(3)).hasSize(48);
    }

    @Test
    void theTextsOfABatchAreItsTokensOneAfterTheOther() {
        String texts = LeaseToken.randomTexts(100);

        assertThat(texts).hasSize(100 * LeaseToken.LENGTH).matches("[A-Za-z0-9_-]+");
        Set<LeaseToken> tokens = new HashSet<>();
        for (int i = 0; i < 100; i++) {
            tokens.add(new LeaseToken(texts.substring(i * LeaseToken.LENGTH, (i + 1) * LeaseToken.LENGTH)));
        }
        assertThat(tokens).hasSize(100);
        assertThat(LeaseToken.randomTexts(0)).isEmpty();
    }

    @Test
    void threadsDrawUnrelatedTokens() throws Exception {
        Set<LeaseToken> all = ConcurrentHashMap.newKeySet();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<Boolean>> draws = pool.invokeAll(java.util.Collections.nCopies(8,
                    () -> all.addAll(LeaseToken.random(500))));
            for (Future<Boolean> d : draws) {
                assertThat(d.get(10, TimeUnit.SECONDS)).isTrue();
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(all).hasSize(4_000);
    }

    @Test
    void aLegacyTokenIsItsDecimalNumberAndItsValueTheNumberZeroExtended() {
        LeaseToken redis = LeaseToken.parse("5225711974607460001");
        LeaseToken postgres = LeaseToken.parse(" +0042\n");

        assertThat(redis.isLegacy()).isTrue();
        assertThat(redis).hasToString("5225711974607460001");
        assertThat(redis.toUuid()).isEqualTo(new UUID(0, 5225711974607460001L));
        assertThat(redis.bits()).startsWith(new byte[8]).hasSize(16);
        assertThat(postgres).as("read as the versions that issued it read it").hasToString("42");
        assertThat(postgres.toUuid()).isEqualTo(UUID.fromString("00000000-0000-0000-0000-00000000002a"));
        assertThat(postgres).isEqualTo(new LeaseToken("42"));
    }

    @Test
    void anythingElseIsNoToken() {
        for (String text : new String[]{null, "", "  ", "nonsense", "1.5", "12e3", "0x2a", "99999999999999999999",
                "AAAAAAAAAAAAAAAAAAAAA", "AAAAAAAAAAAAAAAAAAAAAAA", "AAAAAAAAAAAAAAAAAAAA+A", "AAAAAAAAAAAAAAAAAAAAAB",
                "AAAAAAAAAAAAAAAAAAAAAA==", "1234567890123456789012"}) {
            assertThatThrownBy(() -> LeaseToken.parse(text)).as("%s", text)
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("is not a lease token");
        }
        assertThatThrownBy(() -> LeaseToken.parse("x".repeat(5_000)))
                .hasMessageStartingWith("'" + "x".repeat(40) + "…'");
        assertThatThrownBy(() -> new LeaseToken("042")).as("the canonical form only")
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new LeaseToken(" AAAAAAAAAAAAAAAAAAAAAA"))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
