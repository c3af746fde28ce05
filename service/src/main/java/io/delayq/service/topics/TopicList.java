package io.delayq.service.topics;

import com.fasterxml.jackson.annotation.JsonInclude;

import java.util.List;

/**
 * The answer of {@code GET /v1/topics}: one page of topics, sorted by name.
 *
 * @param nextCursor the {@code cursor} of the next page; absent on the last
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record TopicList(List<TopicView> items, String nextCursor) {
}
