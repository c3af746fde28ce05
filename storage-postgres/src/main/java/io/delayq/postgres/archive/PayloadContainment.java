package io.delayq.postgres.archive;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.math.BigDecimal;
import java.util.regex.Pattern;

/**
 * A payload filter ({@code order.id} = {@code 42}) as the jsonb documents a matching {@code payload_doc} contains:
 * {@code {"order":{"id":"42"}}}, and when the value reads as a JSON number or boolean also
 * {@code {"order":{"id":42}}}. Containment ({@code @>}) then holds exactly when the value at the path is that string,
 * or a number equal to that number ({@code 42}, {@code 42.0} and {@code 4.2e1} are one number to jsonb), or that
 * boolean; an object only contains an object, so a payload that is an array or a scalar never matches, nor does a path
 * that runs through an array. Built as a Jackson tree and printed by it, so no value is ever spliced into SQL or
 * JSON text.
 *
 * @param asString  the containment document with the value as a string
 * @param asLiteral the one with the value as a number or boolean, or {@code null} when it reads as neither
 */
public record PayloadContainment(String asString, String asLiteral) {
    /** A JSON number, as RFC 8259 spells one. */
    private static final Pattern JSON_NUMBER = Pattern.compile("-?(0|[1-9]\\d*)(\\.\\d+)?([eE][+-]?\\d+)?");
    private static final JsonNodeFactory NODES = JsonNodeFactory.withExactBigDecimals(true);

    public static PayloadContainment of(String field, String value) {
        JsonNode literal = null;
        if (JSON_NUMBER.matcher(value).matches()) {
            literal = NODES.numberNode(new BigDecimal(value));
        } else if (value.equals("true") || value.equals("false")) {
            literal = NODES.booleanNode(Boolean.parseBoolean(value));
        }
        return new PayloadContainment(at(field, NODES.textNode(value)),
                literal == null ? null : at(field, literal));
    }

    /** {@code {"a":{"b":leaf}}} for the path {@code a.b}. */
    private static String at(String path, JsonNode leaf) {
        String[] names = path.split("\\.");
        JsonNode node = leaf;
        for (int i = names.length - 1; i >= 0; i--) {
            ObjectNode parent = NODES.objectNode();
            parent.set(names[i], node);
            node = parent;
        }
        return node.toString();
    }
}
