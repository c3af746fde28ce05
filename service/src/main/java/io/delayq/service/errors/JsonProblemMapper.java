package io.delayq.service.errors;

import com.fasterxml.jackson.core.JsonGenerationException;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.exc.InputCoercionException;
import com.fasterxml.jackson.core.exc.StreamReadException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.exc.InvalidDefinitionException;
import com.fasterxml.jackson.databind.exc.InvalidTypeIdException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.PropertyBindingException;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.delayq.core.JobRules;
import io.delayq.service.http.RequestSizeLimit;
import io.delayq.service.http.StrictUtf8;
import io.dropwizard.util.Duration;

import java.math.BigInteger;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Request bodies Jackson could not read: malformed JSON, unknown fields, values of the wrong type. Answers 400 naming
 * the field (as a path such as {@code jobs[2].callback.url}) and the line and column. A failure to <em>write</em> JSON
 * is a bug of ours and goes to {@link CatchAllMapper}. Replaces Dropwizard's mapper for the same type.
 */
public final class JsonProblemMapper extends ProblemMapper<JsonProcessingException> {
    private static final Set<Class<?>> WHOLE_NUMBERS = Set.of(Long.class, long.class, Integer.class, int.class,
            Short.class, short.class, Byte.class, byte.class, BigInteger.class);
    private final CatchAllMapper serverErrors = new CatchAllMapper();

    @Override
    Problem problem(JsonProcessingException e) {
        if (e instanceof JsonGenerationException || e instanceof InvalidDefinitionException) {
            return serverErrors.problem(e);
        }
        RequestSizeLimit.TooLarge tooLarge = cause(e, RequestSizeLimit.TooLarge.class);
        if (tooLarge != null) {
            return Problem.of("request-too-large", 413, tooLarge.getMessage());
        }
        StrictUtf8.Malformed malformed = cause(e, StrictUtf8.Malformed.class);
        if (malformed != null) {
            return Problem.of("malformed-utf8", 400, malformed.getMessage());
        }
        String where = where(e.getLocation());
        InputCoercionException range = cause(e, InputCoercionException.class);
        if (range != null) {
            // Valid JSON whose number does not fit its field (a delayMs of 10^30 written out as an integer).
            String field = e instanceof JsonMappingException mapping ? fieldPath(mapping.getPath()) : "";
            Problem problem = Problem.of("invalid-json-field", 400, (field.isEmpty() ? "A number in the body"
                    : "Field " + JobRules.quote(field)) + " is out of range" + where + ": "
                    + clean(range.getOriginalMessage()));
            return field.isEmpty() ? problem : problem.with("field", field);
        }
        if (e instanceof JsonParseException || e.getCause() instanceof StreamReadException) {
            String message = clean(e.getOriginalMessage());
            // STRICT_DUPLICATE_DETECTION (StrictJson): the JSON is well-formed, but which value counts is ambiguous.
            Problem problem = message.startsWith("Duplicate field")
                    ? Problem.of("duplicate-field", 400, "The body repeats a field in one object" + where + ": "
                    + message + "; send each field once")
                    : Problem.of("malformed-json", 400, "The body is not valid JSON" + where + ": " + message);
            return where.isEmpty() ? problem : problem.with("location", where.substring(2, where.length() - 1));
        }
        if (e instanceof JsonMappingException mapping) {
            String field = fieldPath(mapping.getPath());
            Problem problem = Problem.of("invalid-json-field", 400, describe(mapping, field) + where);
            return field.isEmpty() ? problem : problem.with("field", field);
        }
        return Problem.of("malformed-json", 400, "The body could not be read as JSON" + where + ": "
                + e.getOriginalMessage());
    }

    private static String describe(JsonMappingException e, String field) {
        if (e instanceof PropertyBindingException unknown) {
            String known = unknown.getKnownPropertyIds() == null ? "" : unknown.getKnownPropertyIds().stream()
                    .map(String::valueOf).sorted().collect(Collectors.joining(", "));
            return "Unknown field " + JobRules.quote(field)
                    + (known.isEmpty() ? "" : "; the fields here are: " + known);
        }
        if (e instanceof InvalidTypeIdException typeId) {
            return "Field " + JobRules.quote(field) + " needs a known \"type\""
                    + (typeId.getTypeId() == null ? "" : " (got " + JobRules.quote(typeId.getTypeId()) + ")")
                    + " — see the API description at /openapi.yaml";
        }
        if (e instanceof MismatchedInputException mismatch && expected(mismatch.getTargetType()) != null) {
            return (field.isEmpty() ? "The body" : "Field " + JobRules.quote(field)) + " must be "
                    + expected(mismatch.getTargetType());
        }
        Throwable cause = e instanceof ValueInstantiationException ? rootCause(e) : null;
        String reason = clean(cause != null && cause != e ? cause.getMessage() : e.getOriginalMessage());
        return field.isEmpty() ? "The body has the wrong shape: " + reason
                : "Field " + JobRules.quote(field) + " is invalid: " + reason;
    }

    /**
     * What a client should send for a Java type, in JSON words; {@code null} when there is no simple answer. The
     * mapper coerces nothing (StrictJson), so the answer also says how the value is written.
     */
    private static String expected(Class<?> type) {
        if (type == null) {
            return null;
        }
        if (WHOLE_NUMBERS.contains(type)) {
            return "a number (a whole number, written without quotes, e.g. 30000)";
        }
        if (Number.class.isAssignableFrom(type) || (type.isPrimitive() && type != boolean.class)) {
            return "a number (written without quotes, e.g. 2.0)";
        }
        if (type == Boolean.class || type == boolean.class) {
            return "true or false, written without quotes";
        }
        if (type == String.class) {
            return "a string, in double quotes";
        }
        if (type == Duration.class) {
            return "a string: a duration such as \"500ms\", \"30s\", \"5m\" or \"1h\"";
        }
        if (Collection.class.isAssignableFrom(type) || type.isArray()) {
            return "an array";
        }
        if (Map.class.isAssignableFrom(type) || type.isRecord() || ObjectNode.class.isAssignableFrom(type)) {
            return "a JSON object";
        }
        return null;
    }

    /** Jackson's messages point at its own source description, which means nothing to a client. */
    private static String clean(String message) {
        return message == null ? "" : message.replaceAll("\\s*\\(start marker at \\[Source:[^]]*]\\)", "")
                .replaceAll("\\s*at \\[Source:[^]]*]", "");
    }

    private static <T extends Throwable> T cause(Throwable e, Class<T> type) {
        for (Throwable t = e; t != null && t.getCause() != t; t = t.getCause()) {
            if (type.isInstance(t)) {
                return type.cast(t);
            }
        }
        return null;
    }

    private static Throwable rootCause(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t;
    }

    static String fieldPath(List<JsonMappingException.Reference> path) {
        var out = new StringBuilder();
        for (JsonMappingException.Reference ref : path) {
            if (ref.getFieldName() != null) {
                if (!out.isEmpty()) {
                    out.append('.');
                }
                out.append(ref.getFieldName());
            } else if (ref.getIndex() >= 0) {
                out.append('[').append(ref.getIndex()).append(']');
            }
        }
        return out.toString();
    }

    private static String where(JsonLocation location) {
        if (location == null || location.getLineNr() < 1) {
            return "";
        }
        return " (line " + location.getLineNr() + ", column " + location.getColumnNr() + ")";
    }
}
