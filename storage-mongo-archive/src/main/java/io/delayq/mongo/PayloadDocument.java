package io.delayq.mongo;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delayq.core.archive.DeadLetterQuery;
import org.bson.Document;

import java.math.BigDecimal;
import java.util.Map;

/**
 * The queryable copy of a dead letter's payload ({@code payloadDoc}), beside the exact text the letter keeps: the
 * payload parsed by Jackson, holding only what a payload filter ({@link DeadLetterQuery#payloadField()}) can name.
 *
 * <ul>
 *   <li>Only a payload that is a JSON object has one; a filter never matches any other.</li>
 *   <li>Objects nest at most {@link #MAX_DEPTH} deep, as deep as a filter's dot path reaches.</li>
 *   <li>Arrays are left out: "the value at a path" is never an array, and MongoDB would otherwise match a path
 *       through array elements ({@code order.id} inside {@code order: [{id: 42}]}), which the PostgreSQL archive's
 *       containment query does not.</li>
 *   <li>Keys a path cannot name, and BSON cannot store as field names (a {@code .}, a leading {@code $}, a NUL),
 *       are left out.</li>
 *   <li>Whole numbers that fit a long are int64, every other number a double: MongoDB compares numbers by value
 *       across types, so {@code 42}, {@code 42.0} and {@code 4.2e1} match each other.</li>
 * </ul>
 */
final class PayloadDocument {
    static final int MAX_DEPTH = 8;

    private PayloadDocument() {
    }

    /** The queryable copy, or {@code null} when the payload is not a JSON object. */
    static Document of(String payload, ObjectMapper mapper) {
        if (payload == null || payload.isBlank()) {
            return null;
        }
        JsonNode root;
        try {
            root = mapper.readTree(payload);
        } catch (JsonProcessingException e) {
            return null; // not JSON: kept as text, found by no payload filter
        }
        return root != null && root.isObject() ? object(root, 1) : null;
    }

    private static Document object(JsonNode node, int depth) {
        Document doc = new Document();
        for (Map.Entry<String, JsonNode> field : node.properties()) {
            String key = field.getKey();
            if (key.isEmpty() || key.startsWith("$") || key.indexOf('.') >= 0 || key.indexOf('\0') >= 0) {
                continue;
            }
            Object value = value(field.getValue(), depth);
            if (value != null) {
                doc.append(key, value);
            }
        }
        return doc;
    }

    private static Object value(JsonNode node, int depth) {
        if (node.isObject()) {
            return depth < MAX_DEPTH ? object(node, depth + 1) : null;
        }
        if (node.isTextual()) {
            return node.textValue();
        }
        if (node.isBoolean()) {
            return node.booleanValue();
        }
        if (node.isNumber()) {
            return number(node);
        }
        return null; // arrays and nulls: no filter value equals them
    }

    private static Object number(JsonNode node) {
        if (node.isIntegralNumber() && node.canConvertToLong()) {
            return node.longValue();
        }
        return node.isIntegralNumber() ? node.doubleValue() : number(node.decimalValue());
    }

    /** A number as the copy holds it: int64 when it is whole and fits, else a double. Filter values go through it too. */
    static Object number(BigDecimal value) {
        if (value.signum() == 0 || value.stripTrailingZeros().scale() <= 0) {
            try {
                return value.longValueExact();
            } catch (ArithmeticException e) {
                // too large for a long: a double, as any other number
            }
        }
        return value.doubleValue();
    }
}
