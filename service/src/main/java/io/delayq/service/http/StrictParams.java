package io.delayq.service.http;

import io.delayq.core.JobRules;
import jakarta.ws.rs.ext.ParamConverter;
import jakarta.ws.rs.ext.ParamConverterProvider;

import java.lang.annotation.Annotation;
import java.lang.reflect.Type;
import java.util.function.Function;

/**
 * Reads query, path and header parameters of type {@code Boolean}, {@code Integer} and {@code Long} strictly. JAX-RS
 * would read them with {@code Boolean.valueOf}, which takes {@code replayed=maybe} for {@code false} and so answers a
 * question nobody asked. A value that is not of the type is refused (400, naming the parameter, see
 * {@code WebApplicationProblemMapper}).
 */
public final class StrictParams implements ParamConverterProvider {

    @Override
    @SuppressWarnings("unchecked")
    public <T> ParamConverter<T> getConverter(Class<T> type, Type genericType, Annotation[] annotations) {
        if (type == Boolean.class) {
            return (ParamConverter<T>) converter(StrictParams::bool);
        }
        if (type == Integer.class) {
            return (ParamConverter<T>) converter(StrictParams::wholeInt);
        }
        if (type == Long.class) {
            return (ParamConverter<T>) converter(StrictParams::whole);
        }
        return null;
    }

    private static Boolean bool(String text) {
        return switch (text) {
            case "true" -> Boolean.TRUE;
            case "false" -> Boolean.FALSE;
            default -> throw new IllegalArgumentException("must be true or false, not " + JobRules.quote(text));
        };
    }

    private static long whole(String text) {
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("must be a whole number, e.g. 100, not " + JobRules.quote(text));
        }
    }

    private static int wholeInt(String text) {
        long value = whole(text);
        if (value != (int) value) {
            throw new IllegalArgumentException("must be a whole number from " + Integer.MIN_VALUE + " to "
                    + Integer.MAX_VALUE + ", not " + JobRules.quote(text));
        }
        return (int) value;
    }

    private static <V> ParamConverter<V> converter(Function<String, V> read) {
        return new ParamConverter<>() {
            @Override
            public V fromString(String value) {
                return value == null ? null : read.apply(value);
            }

            @Override
            public String toString(V value) {
                return String.valueOf(value);
            }
        };
    }
}
