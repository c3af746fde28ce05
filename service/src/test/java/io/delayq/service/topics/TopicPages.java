package io.delayq.service.topics;

import com.fasterxml.jackson.databind.JsonNode;
import io.delayq.service.support.Api;

/** Reads {@code GET /v1/topics} page by page (issue 26, finding 12), for tests that look for one topic. */
public final class TopicPages {
    private TopicPages() {
    }

    /** The listed topic of that name, or null, reading every page. */
    public static JsonNode find(Api api, String topic) {
        String cursor = null;
        do {
            JsonNode page = api.get("/v1/topics?limit=1000" + (cursor == null ? "" : "&cursor=" + cursor)).json();
            for (JsonNode t : page.path("items")) {
                if (topic.equals(t.path("topic").asText())) {
                    return t;
                }
            }
            cursor = page.path("nextCursor").isTextual() ? page.path("nextCursor").asText() : null;
        } while (cursor != null);
        return null;
    }
}
