package io.delayq.service.ratelimit;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** How many permits a take asks for: the demand last seen, not the whole batch. */
class AskSizesTest {
    @Test
    void startsAtOneDoublesWhileEveryPermitFindsAJobAndFallsToWhatWasFound() {
        AskSizes asks = new AskSizes();
        assertThat(asks.ask("t", 100)).isEqualTo(1);
        asks.learn("t", 1, 1, 1);
        assertThat(asks.ask("t", 100)).isEqualTo(2);
        asks.learn("t", 2, 2, 2);
        asks.learn("t", 4, 4, 4);
        assertThat(asks.ask("t", 100)).isEqualTo(8);
        assertThat(asks.ask("t", 5)).as("never more than wanted").isEqualTo(5);

        asks.learn("t", 8, 3, 3);
        assertThat(asks.ask("t", 100)).as("the limit cut the batch: the demand is still unknown").isEqualTo(8);

        asks.learn("t", 8, 8, 2);
        assertThat(asks.ask("t", 100)).as("fewer due than permitted").isEqualTo(2);
        asks.learn("t", 2, 2, 0);
        assertThat(asks.ask("t", 100)).as("at least one").isEqualTo(1);
        assertThat(asks.ask("other", 100)).isEqualTo(1);
    }
}
