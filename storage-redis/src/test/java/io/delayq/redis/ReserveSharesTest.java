package io.delayq.redis;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ReserveSharesTest {
    @Test
    void earliestFirstWhenTheFloorIsZero() {
        long[][] heads = {{0, 10}, {20}, {30, 40}};
        assertThat(ReserveShares.of(heads, 3, 0)).containsExactly(2, 1, 0);
    }

    @Test
    void aPartitionWithAnOlderBacklogLeavesEveryOtherItsFloor() {
        long[] old = new long[100];
        long[][] heads = {old, {1_000, 1_001, 1_002, 1_003, 1_004, 1_005}};
        // floor = 20 / (2 × 2) = 5 for each; the other 10 by age, all from the old backlog
        assertThat(ReserveShares.of(heads, 20, 0)).containsExactly(15, 5);
    }

    @Test
    void equalRunAtsGoToThePartitionsInTurn() {
        long[][] heads = {{5, 5}, {5, 5}, {5, 5}};
        assertThat(ReserveShares.of(heads, 1, 0)).containsExactly(1, 0, 0);
        assertThat(ReserveShares.of(heads, 1, 1)).containsExactly(0, 1, 0);
        assertThat(ReserveShares.of(heads, 2, 2)).containsExactly(1, 0, 1);
    }

    @Test
    void neverMoreThanAPartitionHas() {
        long[][] heads = {{1}, {}, {2, 3}};
        assertThat(ReserveShares.of(heads, 10, 0)).containsExactly(1, 0, 2);
        assertThat(ReserveShares.of(new long[][] {{}, {}}, 10, 0)).containsExactly(0, 0);
    }
}
