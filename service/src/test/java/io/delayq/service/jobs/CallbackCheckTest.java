package io.delayq.service.jobs;

import io.delayq.core.Callback;
import io.delayq.core.JobRules;
import io.delayq.service.delivery.CallbackGuard;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A callback URL that passed its checks once is remembered, and a repeat skips only what cannot have changed: the
 * headers of each callback are checked every time, and a refused URL is refused every time, with the same message.
 */
class CallbackCheckTest {
    private final CallbackCheck check = new CallbackCheck(JobRules.defaults(), new CallbackGuard(List.of(), false));

    @Test
    void aRememberedUrlStillHasItsHeadersChecked() {
        check.accept(new Callback("https://93.184.215.14/hooks", null));

        assertThatThrownBy(() -> check.accept(new Callback("https://93.184.215.14/hooks", Map.of("Host", "x"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("Host");
        assertThatThrownBy(() -> check.accept(new Callback("https://93.184.215.14/hooks",
                Map.of("X-Bad", "line\r\nbreak")))).isInstanceOf(IllegalArgumentException.class);
        assertThatCode(() -> check.accept(new Callback("https://93.184.215.14/hooks", Map.of("X-Tenant", "7"))))
                .doesNotThrowAnyException();
    }

    @Test
    void aRefusedUrlIsRefusedEveryTime() {
        for (int i = 0; i < 3; i++) {
            assertThatThrownBy(() -> check.accept(new Callback("http://169.254.169.254/latest", null)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("metadata");
            assertThatThrownBy(() -> check.accept(new Callback("http://10.1.2.3/hook", null)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("private");
            assertThatThrownBy(() -> check.accept(new Callback("ftp://example.com/x", null)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("http");
        }
    }

    @Test
    void moreDistinctUrlsThanItRemembersAreEachStillChecked() {
        for (int i = 0; i < CallbackCheck.REMEMBERED * 2 + 10; i++) {
            check.accept(new Callback("https://93.184.215.14/hooks/" + i, null));
        }
        assertThatThrownBy(() -> check.accept(new Callback("http://127.0.0.1:9/hook", null)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("private");
        assertThatCode(() -> check.accept(new Callback("https://93.184.215.14/hooks/1", null)))
                .doesNotThrowAnyException();
    }
}
