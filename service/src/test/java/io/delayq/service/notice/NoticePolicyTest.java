package io.delayq.service.notice;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The dead notices' retry: a doubling wait with a cap, a last attempt, and when a claim lapses. */
class NoticePolicyTest {
    private final NoticePolicy policy = new NoticePolicy(5, 1_000, 300_000, 10_000);

    @Test
    void waitsDoubleFromTheInitialBackoffUpToTheCapAndTheLastAttemptGivesUp() {
        assertThat(policy.retryAt(1, 50_000)).isEqualTo(51_000);
        assertThat(policy.retryAt(2, 50_000)).isEqualTo(52_000);
        assertThat(policy.retryAt(3, 50_000)).isEqualTo(54_000);
        assertThat(policy.retryAt(4, 50_000)).isEqualTo(58_000);
        assertThat(policy.retryAt(5, 50_000)).as("the 5th of 5 attempts failed").isEqualTo(-1);

        NoticePolicy many = new NoticePolicy(100, 1_000, 300_000, 10_000);
        assertThat(many.retryAt(9, 0)).isEqualTo(256_000);
        assertThat(many.retryAt(10, 0)).as("capped").isEqualTo(300_000);
        assertThat(many.retryAt(99, 0)).as("no overflow however many doublings").isEqualTo(300_000);
    }

    @Test
    void aClaimLapsesAnAttemptsTimeoutAndAMarginAfterItWasMade() {
        assertThat(policy.claimLapsesAt(1_000)).isEqualTo(1_000 + 10_000 + NoticePolicy.CLAIM_MARGIN_MS);
    }

    @Test
    void refusesPoliciesThatCannotWork() {
        assertThatThrownBy(() -> new NoticePolicy(0, 1_000, 1_000, 1_000)).hasMessageContaining("maxAttempts");
        assertThatThrownBy(() -> new NoticePolicy(1, 2_000, 1_000, 1_000)).hasMessageContaining("maxBackoff");
        assertThatThrownBy(() -> new NoticePolicy(1, 1_000, 1_000, 0)).hasMessageContaining("timeout");
    }
}
