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
}
