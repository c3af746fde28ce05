package io.delayq.client;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;

/** The client's JSON settings: ISO times, unknown fields ignored (so newer services don't break older clients). */
final class Json {
    static final ObjectMapper DEFAULT = configure(new ObjectMapper());

    private Json() {
    }

    static ObjectMapper configure(ObjectMapper mapper) {
        return mapper.registerModule(new JavaTimeModule())
                .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
                .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .setSerializationInclusion(JsonInclude.Include.NON_NULL);
    }

    static <T> T convert(JsonNode node, Class<T> type) {
        if (type.isInstance(node)) {
            return type.cast(node);
        }
        try {
            return DEFAULT.treeToValue(node, type);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalArgumentException("the payload cannot be read as " + type.getName() + ": "
                    + e.getOriginalMessage(), e);
        }
    }
}
