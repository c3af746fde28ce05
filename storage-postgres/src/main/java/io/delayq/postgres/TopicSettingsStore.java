package io.delayq.postgres;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delayq.core.JobRules;
import io.delayq.core.StoreException;
import io.delayq.core.StoreStatus;
import io.delayq.core.TopicSettings;

import java.util.Optional;
import java.util.function.UnaryOperator;

/** Topics' settings, as JSON in their {@code delayq_topics} rows: read, written, and changed by compare-and-set. */
final class TopicSettingsStore {
    /** Compare-and-set rounds of one settings update before it gives up (each lost round means another update won). */
    private static final int UPDATE_ROUNDS = 50;

    private final JobQueries queries;
    private final KnownTopics topics;
    private final ObjectMapper mapper;

    TopicSettingsStore(JobQueries queries, KnownTopics topics, ObjectMapper mapper) {
        this.queries = queries;
        this.topics = topics;
        this.mapper = mapper;
    }

    TopicSettings settings(String topic) {
        Optional<String> json = PostgresCalls.call("read settings", () -> queries.readSettings(topic));
        return json.isEmpty() ? TopicSettings.empty() : parse(topic, json.get());
    }

    void put(String topic, TopicSettings settings) {
        JobRules.checkTopic(topic);
        String json = encode(topic, settings);
        PostgresCalls.call("store settings", () -> {
            queries.putSettings(topic, json);
            return null;
        });
        topics.add(topic);
    }

    /**
     * Compare-and-set on the topic's settings row ({@link JobQueries#compareAndSetSettings}): no lock is held while
     * {@code change} runs; a lost round reads again and applies {@code change} anew.
     */
    TopicSettings update(String topic, UnaryOperator<TopicSettings> change) {
        JobRules.checkTopic(topic);
        for (int round = 0; round < UPDATE_ROUNDS; round++) {
            Optional<String> read = PostgresCalls.call("read settings", () -> queries.readSettings(topic));
            TopicSettings next = change.apply(read.isEmpty() ? TopicSettings.empty() : parse(topic, read.get()));
            String json = encode(topic, next);
            boolean written = PostgresCalls.call("update settings",
                    () -> queries.compareAndSetSettings(topic, read.orElse(null), json)).isPresent();
            if (written) {
                topics.add(topic);
                return parse(topic, json);
            }
        }
        throw new StoreException(StoreStatus.CONFLICT, "the settings of topic " + topic + " kept changing under this"
                + " update (" + UPDATE_ROUNDS + " concurrent updates won); send it again");
    }

    TopicSettings parse(String topic, String json) {
        try {
            return mapper.readValue(json, TopicSettings.class);
        } catch (JsonProcessingException e) {
            throw new StoreException(StoreStatus.UNAVAILABLE, "the stored settings of topic " + topic
                    + " are not readable (" + e.getOriginalMessage() + "); store them again", e);
        }
    }

    private String encode(String topic, TopicSettings settings) {
        try {
            return mapper.writeValueAsString(settings);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("cannot encode the settings of topic " + topic + ": "
                    + e.getOriginalMessage(), e);
        }
    }
}
