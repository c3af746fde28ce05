package io.delayq.core.archive;

import java.util.List;

/**
 * One page of a listing.
 *
 * @param items      the items, in the listing's order
 * @param nextCursor an opaque token for the next page, or {@code null} when this is the last one
 */
public record Page<T>(List<T> items, String nextCursor) {
    public Page {
        items = List.copyOf(items);
    }

    public boolean hasNext() {
        return nextCursor != null;
    }
}
