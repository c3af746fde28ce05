package io.delayq.service.delivery;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** How much of a lease is kept for recording the attempt's outcome. */
class AttemptBudgetTest {

    @Test
    void aShortAttemptKeepsEnoughOfItsLeaseToWriteItsOutcome() {
        AttemptBudget budget = new AttemptBudget(new StoreWriteTimes());

        // 10 % of 100 ms (the old margin) is no more than the default ackFlushInterval and leaves nothing for the write
        assertThat(budget.marginMs(100)).isEqualTo(AttemptBudget.MIN_RECORDING_MS).isGreaterThan(100 / 10);
        assertThat(budget.httpTimeoutMs(100, 100)).isEqualTo(100 - AttemptBudget.MIN_RECORDING_MS);
    }

    @Test
    void aSlowStoreTakesMoreOfTheLeaseButNeverMoreThanHalf() {
        StoreWriteTimes writes = new StoreWriteTimes();
        AttemptBudget budget = new AttemptBudget(writes);
        writes.record(15_000_000); // a 15 ms store write

        assertThat(budget.recordingMs()).isEqualTo(AttemptBudget.MIN_RECORDING_MS + 30);
        assertThat(budget.marginMs(1_000)).isEqualTo(100); // 10 % is more than recording needs
        assertThat(budget.marginMs(200)).isEqualTo(AttemptBudget.MIN_RECORDING_MS + 30);
        assertThat(budget.marginMs(100)).as("half of the attempt at most").isEqualTo(50);
    }

    @Test
    void longAttemptsKeepTheirProportionalMarginCappedAtOneSecond() {
        AttemptBudget budget = new AttemptBudget(new StoreWriteTimes());

        assertThat(budget.marginMs(30_000)).isEqualTo(1_000);
        assertThat(budget.httpTimeoutMs(30_000, 30_000)).isEqualTo(29_000);
        assertThat(budget.httpTimeoutMs(30_000, 5_000)).as("cut to what is left of the lease").isEqualTo(4_000);
        assertThat(budget.httpTimeoutMs(30_000, 500)).as("never below 1 ms").isEqualTo(1);
    }
}
