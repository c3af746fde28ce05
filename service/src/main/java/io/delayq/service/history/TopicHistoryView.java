package io.delayq.service.history;

import java.util.List;

/** {@code GET /v1/topics/{topic}/history}: one entry per minute, oldest first, the current minute last. */
public record TopicHistoryView(String topic, List<MinuteView> minutes) {
}
