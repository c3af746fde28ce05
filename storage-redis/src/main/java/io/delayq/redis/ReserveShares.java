package io.delayq.redis;

import java.util.ArrayList;
import java.util.List;

/**
 * How many jobs one reserve over several partitions takes from each: earliest runAt first across the partitions (what
 * a single partition does), except that every partition with entries is first guaranteed
 * {@code wanted / (2 × partitions with entries)} of them. Without that floor, a partition whose backlog is always
 * older than the others' (a producer that keeps it full of overdue jobs) would take every lease and starve the rest;
 * with it, at least half of each reserve still goes by age. Equal runAts (a batch enqueued in one ms) go to the
 * partitions in turn starting at {@code turn}, so no partition always wins the ties.
 */
final class ReserveShares {
    private ReserveShares() {
    }

    /**
     * @param heads  per partition, the runAt of its earliest entries, ascending (at most {@code wanted} of them)
     * @param wanted jobs to reserve in all
     * @param turn   the partition that wins ties this time
     * @return per partition, how many of its earliest entries to reserve (at most its head's size)
     */
    static int[] of(long[][] heads, int wanted, int turn) {
        int n = heads.length;
        int[] share = new int[n];
        int withEntries = 0;
        for (long[] head : heads) {
            withEntries += head.length > 0 ? 1 : 0;
        }
        if (withEntries == 0) {
            return share;
        }
        int floor = wanted / (2 * withEntries);
        int left = wanted;
        for (int i = 0; i < n; i++) {
            share[i] = Math.min(floor, heads[i].length);
            left -= share[i];
        }
        // the rest by age: candidates past each partition's floor, earliest first; equal runAts taken one per partition
        // at a time (by their place in their partition), starting at partition `turn`
        List<long[]> candidates = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            for (int j = share[i]; j < heads[i].length; j++) {
                candidates.add(new long[] {heads[i][j], j, Math.floorMod(i - turn, n), i});
            }
        }
        candidates.sort((a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0])
                : a[1] != b[1] ? Long.compare(a[1], b[1]) : Long.compare(a[2], b[2]));
        for (int c = 0; c < Math.min(left, candidates.size()); c++) {
            share[(int) candidates.get(c)[3]]++;
        }
        return share;
    }
}
