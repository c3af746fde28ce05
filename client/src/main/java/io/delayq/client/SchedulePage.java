package io.delayq.client;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

import java.util.List;

/**
 * One page of a topic's schedules, in name order.
 *
 * @param nextCursor give it to {@link DelayqClient#schedules(String, int, String)} for the next page; {@code null} on
 *                   the last page
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record SchedulePage(List<ScheduleInfo> items, String nextCursor) {
    public SchedulePage {
        items = items == null ? List.of() : List.copyOf(items);
    }

    public boolean hasNext() {
        return nextCursor != null;
    }
}
