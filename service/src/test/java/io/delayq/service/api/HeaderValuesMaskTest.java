package io.delayq.service.api;

import io.delayq.core.Callback;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The masking rules of {@link HeaderValues} on their own: what views show, what a PUT keeps, what an audit entry says. */
class HeaderValuesMaskTest {
    private static final String MASK = HeaderValues.MASK;
    private final Callback stored = new Callback("https://a.example:443/hook", Map.of("X-Key", "k1", "X-Two", "k2"));

    @Test
    void viewsShowNamesAndTheMask() {
        assertThat(HeaderValues.masked(stored).headers()).containsOnly(Map.entry("X-Key", MASK), Map.entry("X-Two", MASK));
        assertThat(HeaderValues.masked(stored).url()).isEqualTo(stored.url());
        assertThat(HeaderValues.masked(null)).isNull();
        assertThat(MASK).isEqualTo("********");
    }

    @Test
    void aMaskKeepsTheValueStoredUnderTheSameNameAtTheSameOrigin() {
        Callback given = new Callback("https://A.example/other-path", Map.of("X-Key", MASK, "X-New", "n"));
        assertThat(HeaderValues.keepStored("callback", given, stored).headers())
                .containsOnly(Map.entry("X-Key", "k1"), Map.entry("X-New", "n"));
        Callback withoutMask = new Callback("https://b.example/", Map.of("X-Key", "plain"));
        assertThat(HeaderValues.keepStored("callback", withoutMask, stored)).isSameAs(withoutMask);
        assertThat(HeaderValues.keepStored("callback", null, stored)).isNull();

        assertThatThrownBy(() -> HeaderValues.keepStored("onDead", new Callback(stored.url(), Map.of("x-key", MASK)),
                stored)).hasMessageContaining("onDead.headers.'x-key'").hasMessageContaining("no value stored");
        assertThatThrownBy(() -> HeaderValues.keepStored("callback", given, null))
                .hasMessageContaining("no value stored");
        assertThatThrownBy(() -> HeaderValues.keepStored("callback",
                new Callback("https://a.example:8443/hook", Map.of("X-Key", MASK)), stored))
                .hasMessageContaining("another origin");
        assertThatThrownBy(() -> HeaderValues.refuseMask("callback", given)).hasMessageContaining("'X-Key'");
        assertThat(HeaderValues.refuseMask("callback", stored)).isSameAs(stored);
    }

    @Test
    void auditTextIsMaskedEvenWhenCutShort() {
        String body = "{\"paused\":true,\"callback\":{\"url\":\"https://h/\",\"headers\":{\"X-Key\":\"k1\"}},"
                + "\"onDead\":{\"url\":\"https://h/d\",\"headers\":{\"X-Dead\":\"k2\",\"X-More\":\"k3\"}},"
                + "\"note\":{\"headers\":{\"X\":\"shown\"}}}";
        assertThat(HeaderValues.maskedJson(body)).isEqualTo(body.replace("k1", MASK).replace("k2", MASK)
                .replace("k3", MASK));
        String cut = body.substring(0, body.indexOf("k2") + 1) + "…";
        assertThat(HeaderValues.maskedJson(cut)).doesNotContain("k1").doesNotContain("\"k").endsWith("…")
                .contains("\"X-Key\":\"" + MASK + "\"");
        assertThat(HeaderValues.maskedJson("new job a:1:r1")).isEqualTo("new job a:1:r1");
        assertThat(HeaderValues.maskedJson("headers: k1")).doesNotContain("k1");
        assertThat(HeaderValues.maskedJson(null)).isNull();
    }
}
