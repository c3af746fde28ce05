package io.delayq.service.http;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.type.LogicalType;

/**
 * How request bodies are read: with the types of the OpenAPI document and nothing else. Jackson's defaults turn
 * {@code "5000"} into the number 5000, {@code 1.5} into 1, {@code 1} into {@code true}, {@code 123} into the string
 * {@code "123"} and {@code ""} into {@code null}, and let a repeated key silently replace the first; here each of
 * those is a 400 naming the field and what to send. (Jackson reads the strings {@code "NaN"} and {@code "Infinity"}
 * as doubles whatever the coercion settings; the backoff refuses them itself, as it does {@code 1e400}.)
 *
 * <p>Applied to the service's ObjectMapper once the configuration has been read, not before: YAML scalars carry no
 * type of their own (a numeric password is an integer to the YAML parser), so the configuration keeps Jackson's
 * coercions while the API does not.
 */
public final class StrictJson {
    private StrictJson() {
    }

    public static ObjectMapper configure(ObjectMapper mapper) {
        mapper.enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
        mapper.disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT);
        for (LogicalType scalar : new LogicalType[]{LogicalType.Integer, LogicalType.Float, LogicalType.Boolean}) {
            mapper.coercionConfigFor(scalar)
                    .setCoercion(CoercionInputShape.String, CoercionAction.Fail)
                    .setCoercion(CoercionInputShape.EmptyString, CoercionAction.Fail);
        }
        mapper.coercionConfigFor(LogicalType.Integer).setCoercion(CoercionInputShape.Float, CoercionAction.Fail);
        mapper.coercionConfigFor(LogicalType.Boolean).setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Float, CoercionAction.Fail);
        mapper.coercionConfigFor(LogicalType.Textual).setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail);
        return mapper;
    }
}
