package io.delayq.service.delivery;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/** A collection cut into pages of a size, for store calls that take many topics at once. */
final class Pages {
    private Pages() {
    }

    static <T> List<List<T>> of(Collection<T> all, int size) {
        List<List<T>> pages = new ArrayList<>();
        List<T> page = new ArrayList<>(Math.min(size, all.size()));
        for (T item : all) {
            page.add(item);
            if (page.size() == size) {
                pages.add(page);
                page = new ArrayList<>(size);
            }
        }
        if (!page.isEmpty()) {
            pages.add(page);
        }
        return pages;
    }
}
