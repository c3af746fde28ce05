package io.delayq.service.api;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.JsonToken;
import io.delayq.core.Callback;
import io.delayq.core.JobRules;
import io.delayq.core.breaker.Origins;

import java.io.IOException;
import java.io.StringWriter;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Callback and {@code onDead} header values are write-only: they are the receivers' credentials (an
 * {@code Authorization} or API key header), and nothing but the delivery path reads them. Every view of a job, a topic
 * or a dead letter shows each header's name with the value replaced by {@link #MASK}, to every role, admins included;
 * so does the audit log's copy of a PUT body.
 *
 * <p>The round trip of an edit form: a PUT that sends a header whose value is exactly {@link #MASK} keeps the value
 * stored under the same header name (the name as stored, case included). A mask for a name that has no stored value is
 * a 422, and so is a mask in a callback whose origin ({@code scheme://host:port}) is not the stored callback's: keeping
 * a value while the URL moves to another receiver would send a credential nobody can read to a place of the caller's
 * choosing. A new job or a replay has no stored value to keep, so a mask in it is a 422 too.
 */
public final class HeaderValues {
    /** What every view shows in place of a header value. */
    public static final String MASK = Callback.MASKED_VALUE;

    private static final JsonFactory JSON = new JsonFactory();
    /** The fields of a body or view that hold a callback ({@code {url, headers}}). */
    private static final Set<String> HOLDERS = Set.of("callback", "onDead");

    private HeaderValues() {
    }

    /** The callback as views show it: its URL, and each header's name with {@link #MASK} for its value. */
    public static Callback masked(Callback callback) {
        if (callback == null || callback.headers().isEmpty()) {
            return callback;
        }
        Map<String, String> masked = new LinkedHashMap<>();
        callback.headers().keySet().forEach(name -> masked.put(name, MASK));
        return new Callback(callback.url(), masked);
    }

    /**
     * The callback a PUT gives, with each masked header given its stored value back (see the class comment).
     *
     * @param field  {@code callback} or {@code onDead}, for the message
     * @param given  the callback in the body, checked already (or {@code null}: reset to the service default)
     * @param stored the callback stored now (or {@code null})
     * @throws IllegalArgumentException (422) for a mask with no stored value of its name, or for another origin
     */
    public static Callback keepStored(String field, Callback given, Callback stored) {
        if (given == null || !given.headers().containsValue(MASK)) {
            return given;
        }
        Map<String, String> resolved = new LinkedHashMap<>();
        for (Map.Entry<String, String> header : given.headers().entrySet()) {
            String value = header.getValue();
            if (MASK.equals(value)) {
                String name = header.getKey();
                if (stored == null || !stored.headers().containsKey(name)) {
                    throw new IllegalArgumentException(field + ".headers." + JobRules.quote(name) + " is the mask '"
                            + MASK + "', which keeps a stored value, but " + field + " has no value stored under "
                            + JobRules.quote(name) + ": send the header's value");
                }
                if (!sameOrigin(given.url(), stored.url())) {
                    throw new IllegalArgumentException(field + ".headers." + JobRules.quote(name) + " is the mask '"
                            + MASK + "', but " + field + ".url moves to another origin than the stored "
                            + field + "'s: a stored header value goes only where it was sent before; send the value"
                            + " again for the new receiver");
                }
                value = stored.headers().get(name);
            }
            resolved.put(header.getKey(), value);
        }
        return new Callback(given.url(), resolved);
    }

    /**
     * Refuses a mask where there is no stored value to keep: a new job, a batch item, a replay's callback.
     *
     * @throws IllegalArgumentException (422) naming the field and the header
     */
    public static Callback refuseMask(String field, Callback given) {
        if (given != null) {
            for (Map.Entry<String, String> header : given.headers().entrySet()) {
                if (MASK.equals(header.getValue())) {
                    throw new IllegalArgumentException(field + ".headers." + JobRules.quote(header.getKey())
                            + " is the mask '" + MASK + "', which stands for a stored value; there is none here:"
                            + " send the header's value");
                }
            }
        }
        return given;
    }

    /**
     * A JSON text (an audit entry's copy of a request body) with every header value of a {@code callback} or
     * {@code onDead} replaced by {@link #MASK}, everything else as it was (compacted). Text that cannot hold one is
     * returned as it is. A text cut short (an audit detail is cut at 500 characters) is masked up to the cut and ends
     * with "…"; text that is not JSON but mentions headers is withheld, since it cannot be read to mask.
     */
    public static String maskedJson(String text) {
        if (text == null || !text.contains("headers")) {
            return text;
        }
        StringWriter out = new StringWriter();
        try (JsonParser parser = JSON.createParser(text); JsonGenerator generator = JSON.createGenerator(out)) {
            try {
                for (JsonToken token = parser.nextToken(); token != null; token = parser.nextToken()) {
                    if (token == JsonToken.VALUE_STRING && isHeaderValue(parser.getParsingContext())) {
                        generator.writeString(MASK);
                    } else {
                        generator.copyCurrentEvent(parser);
                    }
                }
                generator.flush();
                return out.toString();
            } catch (IOException cut) {
                generator.flush();
                String masked = out.toString();
                return masked.isEmpty() ? "(withheld: it could not be read to mask header values)" : masked + "…";
            }
        } catch (IOException e) {
            return "(withheld: it could not be read to mask header values)";
        }
    }

    /** Whether a string at this place is the value of {@code <callback|onDead>.headers.<name>}. */
    private static boolean isHeaderValue(JsonStreamContext headers) {
        if (!headers.inObject()) {
            return false;
        }
        JsonStreamContext holder = headers.getParent();
        if (holder == null || !holder.inObject() || !"headers".equals(holder.getCurrentName())) {
            return false;
        }
        JsonStreamContext outer = holder.getParent();
        return outer != null && HOLDERS.contains(outer.getCurrentName());
    }

    private static boolean sameOrigin(String url, String storedUrl) {
        try {
            return Origins.of(url).equals(Origins.of(storedUrl));
        } catch (IllegalArgumentException e) {
            return false;
        }
    }
}
