package io.delayq.client;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

import java.util.List;

/**
 * One page of topics, by name ({@code GET /v1/topics}).
 *
 * @param items      the topics, with their counters and settings
 * @param nextCursor give it to {@link DelayqClient#topics(int, String)} for the next page; {@code null} on the last
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record TopicPage(List<TopicInfo> items, String nextCursor) {
    public TopicPage {
        items = items == null ? List.of() : List.copyOf(items);
    }

    public boolean hasNext() {
        return nextCursor != null;
    }
}
