package io.delayq.client;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

import java.util.List;

/**
 * One page of dead letters, newest first.
 *
 * @param items      the dead letters
 * @param nextCursor give it to {@link DeadLetterQuery#cursor} for the next page; {@code null} on the last page
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record DeadLetterPage(List<DeadLetter> items, String nextCursor) {
    public DeadLetterPage {
        items = items == null ? List.of() : List.copyOf(items);
    }

    public boolean hasNext() {
        return nextCursor != null;
    }
}
