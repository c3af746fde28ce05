package io.delayq.service.jobs;

import com.fasterxml.jackson.annotation.JsonRawValue;
import com.fasterxml.jackson.annotation.JsonValue;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;

import java.io.IOException;
import java.io.StringWriter;

/**
 * A JSON value kept as the producer wrote it, compacted: a job's payload. Read token by token, with every number
 * copied as its text, so that {@code 1e400}, {@code 0.1000000000000000055511151231257827} or {@code 1.50} reach the
 * receiver as sent rather than through a {@code double} ({@code "Infinity"}, {@code 0.1}, {@code 1.5}). Strings are
 * re-encoded, which keeps their value.
 *
 * @param json the compact JSON text
 */
@JsonDeserialize(using = RawJson.Reader.class)
public record RawJson(@JsonValue @JsonRawValue String json) {

    @Override
    public String toString() {
        return json;
    }

    /** Copies the current value of a parser into compact JSON text. */
    static final class Reader extends StdDeserializer<RawJson> {
        private static final JsonFactory COMPACT = new JsonFactory();

        Reader() {
            super(RawJson.class);
        }

        @Override
        public RawJson deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
            var text = new StringWriter();
            try (JsonGenerator out = COMPACT.createGenerator(text)) {
                int depth = 0;
                do {
                    JsonToken token = p.currentToken();
                    if (token == JsonToken.VALUE_NUMBER_INT || token == JsonToken.VALUE_NUMBER_FLOAT) {
                        out.writeNumber(p.getText());
                    } else {
                        out.copyCurrentEvent(p);
                    }
                    if (token.isStructStart()) {
                        depth++;
                    } else if (token.isStructEnd()) {
                        depth--;
                    }
                } while (depth > 0 && p.nextToken() != null);
            }
            return new RawJson(text.toString());
        }
    }
}
