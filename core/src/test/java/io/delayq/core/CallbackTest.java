package io.delayq.core;

import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CallbackTest {

    @Test
    void whatCannotBeHeldIsRefusedWithAMessage() {
        assertThatThrownBy(() -> new Callback(null, Map.of())).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("callback.url is required");
        var nullValue = new HashMap<String, String>();
        nullValue.put("X-A", null);
        assertThatThrownBy(() -> new Callback("http://h/", nullValue)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'X-A' is null");
        var nullName = new HashMap<String, String>();
        nullName.put(null, "v");
        assertThatThrownBy(() -> new Callback("http://h/", nullName)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("header name is null");
        assertThat(new Callback("http://h/", null).headers()).isEmpty();
    }

    /** A job or a callback in a log line names its headers but never shows a value (the receiver's credential). */
    @Test
    void itsTextNamesTheHeadersAndMasksTheirValues() {
        Callback callback = new Callback("https://h/hook", Map.of("Authorization", "Bearer s3cret"));
        assertThat(callback.toString()).isEqualTo("Callback[url=https://h/hook, headers={Authorization=********}]");
        assertThat(new TopicSettings(callback, null, null, null, null, null).toString())
                .doesNotContain("s3cret").contains("Authorization=********");
    }
}
