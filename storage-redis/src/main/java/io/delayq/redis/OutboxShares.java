package io.delayq.redis;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * How many entries one outbox read takes from each partition: {@code max} in all, split as evenly as the partitions'
 * sizes allow (a partition with fewer entries than its even part gives the rest to the others), so that a read costs
 * O(max) entries however many partitions have a backlog, and returns everything when the whole outbox fits. When
 * there are more partitions with entries than {@code max}, the ones that get an entry take turns: the caller moves
 * {@code turn} on between reads.
 */
final class OutboxShares {
    private OutboxShares() {
    }

    /**
     * @param sizes entries waiting in each partition
     * @param max   entries to take in all
     * @param turn  rotates which partitions come first when the split is uneven
     * @return entries to take from each partition, in the order of {@code sizes}
     */
    static int[] of(long[] sizes, int max, int turn) {
        int n = sizes.length;
        int[] shares = new int[n];
        int first = n == 0 ? 0 : Math.floorMod(turn, n);
        Comparator<Integer> inTurn = Comparator.comparingInt(i -> Math.floorMod(i - first, n));
        List<Integer> bySize = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            bySize.add(i);
        }
        bySize.sort(Comparator.<Integer>comparingLong(i -> sizes[i]).thenComparing(inTurn));
        long left = max;
        for (int k = 0; k < n; k++) {
            int remaining = n - k;
            long even = left / remaining;
            int i = bySize.get(k);
            if (sizes[i] <= even) {
                shares[i] = (int) sizes[i];
                left -= sizes[i];
                continue;
            }
            // every partition from here on holds more than an even part of what is left: each gets that part, and the
            // remainder goes one by one to the first in turn
            List<Integer> rest = new ArrayList<>(bySize.subList(k, n));
            rest.sort(inTurn);
            long remainder = left % remaining;
            for (int j = 0; j < rest.size(); j++) {
                shares[rest.get(j)] = (int) (even + (j < remainder ? 1 : 0));
            }
            break;
        }
        return shares;
    }
}
