package io.delayq.service.http;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Predicate;

import io.delayq.service.errors.InvalidFieldsException;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * The {@code limit} and {@code cursor} query parameters of a listing paged by name ({@code GET /v1/topics},
 * {@code GET /v1/admin/circuits}): a page is the names after the cursor's, in name order, so a page is stable while
 * names come and go. The cursor is the last name of the previous page, base64url-encoded (opaque to clients, and
 * safe in a query string whatever the name holds). A bad value is a 400 problem naming the parameter, before anything
 * is read.
 */
public final class Paging {
    public static final int DEFAULT_LIMIT = 100;
    public static final int MAX_LIMIT = 1_000;
    /** Longer cursors are refused unread (names are at most a few hundred characters). */
    private static final int MAX_CURSOR_LENGTH = 2_048;

    private Paging() {
    }

    /** {@code limit}, 1 to {@value #MAX_LIMIT}; {@value #DEFAULT_LIMIT} when absent. */
    public static int limit(Integer limit) {
        if (limit == null) {
            return DEFAULT_LIMIT;
        }
        if (limit < 1 || limit > MAX_LIMIT) {
            throw new InvalidFieldsException("limit must be 1 to " + MAX_LIMIT + " (got " + limit + ")", "limit");
        }
        return limit;
    }

    /** The name a {@code cursor} stands for (the last of the previous page), or {@code null} for the first page. */
    public static String after(String cursor) {
        if (cursor == null || cursor.isEmpty()) {
            return null;
        }
        if (cursor.length() > MAX_CURSOR_LENGTH) {
            throw new InvalidFieldsException("cursor is not one this service gave (too long)", "cursor");
        }
        try {
            String name = new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.UTF_8);
            if (name.isEmpty() || !cursor.equals(of(name))) {
                throw new IllegalArgumentException("not canonical");
            }
            return name;
        } catch (IllegalArgumentException e) {
            throw new InvalidFieldsException("cursor is not one this service gave: pass a nextCursor unchanged, or"
                    + " leave it out for the first page", "cursor");
        }
    }

    /** Reads of the store one filtered page may make before it answers with what it found and a cursor. */
    static final int MAX_READS_PER_PAGE = 10;

    /** A page of items and the cursor of the next ({@code null} on the last page). */
    public record Page<T>(List<T> items, String nextCursor) {
    }

    /**
     * One page of the items after {@code after} that {@code keep} accepts (a tenant's own topics or origins), read in
     * name order {@code limit + 1} at a time: a page examines at most {@value #MAX_READS_PER_PAGE} reads, then answers
     * what it found with a cursor to go on (possibly fewer items than asked: filtered, never a scan of everything in
     * one request). Without a filter that is one read, as an unfiltered page.
     *
     * @param read   the store's read of at most {@code n} items after a name, in name order
     * @param nameOf an item's name, the order's key
     */
    public static <T> Page<T> page(String after, int limit, BiFunction<String, Integer, List<T>> read,
                                   Function<T, String> nameOf, Predicate<T> keep) {
        List<T> page = new ArrayList<>();
        String position = after;
        boolean more = true;
        for (int reads = 0; more && page.size() < limit && reads < MAX_READS_PER_PAGE; reads++) {
            List<T> batch = read.apply(position, limit + 1);
            int usable = Math.min(batch.size(), limit);
            more = batch.size() > limit;
            for (int i = 0; i < usable; i++) {
                T item = batch.get(i);
                position = nameOf.apply(item);
                if (keep.test(item)) {
                    page.add(item);
                    if (page.size() == limit) {
                        more = more || i < usable - 1;
                        break;
                    }
                }
            }
        }
        return new Page<>(List.copyOf(page), more && position != null ? of(position) : null);
    }

    /** The cursor of the page after the one that ended with {@code lastName}. */
    public static String of(String lastName) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(lastName.getBytes(StandardCharsets.UTF_8));
    }
}
