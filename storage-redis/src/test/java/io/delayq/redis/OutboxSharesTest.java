package io.delayq.redis;

import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;

class OutboxSharesTest {

    @Test
    void everythingWhenTheOutboxFits() {
        assertThat(OutboxShares.of(new long[] {0, 5, 3, 0}, 100, 0)).containsExactly(0, 5, 3, 0);
    }

    @Test
    void anEvenSplitWhereThereIsMoreThanEnough() {
        assertThat(OutboxShares.of(new long[] {1_000, 1_000, 1_000, 1_000}, 100, 0)).containsExactly(25, 25, 25, 25);
    }

    @Test
    void whatASmallPartitionCannotUseGoesToTheOthers() {
        int[] shares = OutboxShares.of(new long[] {2, 1_000, 0, 1_000}, 10, 0);
        assertThat(shares).containsExactly(2, 4, 0, 4);
    }

    @Test
    void theRemainderAndScarceEntriesTakeTurns() {
        long[] sizes = {50, 50, 50, 50, 50};
        assertThat(OutboxShares.of(sizes, 2, 0)).containsExactly(1, 1, 0, 0, 0);
        assertThat(OutboxShares.of(sizes, 2, 2)).containsExactly(0, 0, 1, 1, 0);
        assertThat(OutboxShares.of(sizes, 2, 4)).containsExactly(1, 0, 0, 0, 1);
        assertThat(OutboxShares.of(sizes, 7, 3)).containsExactly(1, 1, 1, 2, 2);
    }

    @Test
    void neverMoreThanMaxNorMoreThanAPartitionHolds() {
        long[] sizes = {7, 0, 13, 1, 400, 2, 9};
        for (int max = 1; max <= 500; max++) {
            for (int turn = 0; turn < sizes.length; turn++) {
                int[] shares = OutboxShares.of(sizes, max, turn);
                long total = Arrays.stream(sizes).sum();
                assertThat(Arrays.stream(shares).sum()).isEqualTo((int) Math.min(max, total));
                for (int i = 0; i < sizes.length; i++) {
                    assertThat(shares[i]).isBetween(0, (int) sizes[i]);
                }
            }
        }
    }

    @Test
    void noPartitions() {
        assertThat(OutboxShares.of(new long[0], 10, 3)).isEmpty();
    }
}
