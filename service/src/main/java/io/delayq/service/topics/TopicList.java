package io.delayq.service.topics;

import java.util.List;

/** The answer of {@code GET /v1/topics}: every topic that has had a job, sorted by name. */
public record TopicList(List<TopicView> topics) {
}
