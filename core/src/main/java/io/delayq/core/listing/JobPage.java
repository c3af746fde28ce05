package io.delayq.core.listing;

import io.delayq.core.Job;

import java.util.List;

/**
 * One page of a job listing.
 *
 * @param items      the jobs, in the listing's order (by position, then id; see {@link JobQuery})
 * @param nextCursor where the next page starts, or {@code null} when nothing is left. A page that stopped at
 *                   {@link JobQuery#EXAMINE_PER_PAGE} may hold fewer than {@code limit} jobs, even none, and still
 *                   have a next cursor: go on until it is {@code null}
 * @param examined   how many jobs the store read for this page (what the page cost)
 */
public record JobPage(List<Job> items, String nextCursor, long examined) {
    public JobPage {
        items = List.copyOf(items);
    }

    public boolean hasNext() {
        return nextCursor != null;
    }
}
