package io.delayq.core.tenant;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import io.delayq.core.StoreException;
import io.delayq.core.StoreStatus;
import io.dropwizard.jackson.Jackson;

import java.util.stream.Collectors;

/**
 * The stored form of a {@link Tenant} and an {@link ApiToken}: their records as JSON, one form for every store. Fields
 * this version does not know are passed over when reading, so that instances of the previous version keep reading
 * what a newer one wrote during a rolling upgrade.
 *
 * <p>A tenant's JSON holds its signing secrets (the service needs them to sign), so no message made here quotes the
 * JSON or a value from it: a record that cannot be read is named by where it is stored and the path of the field at
 * fault.
 */
public final class TenancyJson {
    private static final ObjectMapper MAPPER = Jackson.newObjectMapper();
    private static final ObjectReader TENANT = MAPPER.readerFor(Tenant.class)
            .without(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
    private static final ObjectReader TOKEN = MAPPER.readerFor(ApiToken.class)
            .without(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    private TenancyJson() {
    }

    public static String write(Tenant tenant) {
        return encode(tenant, "tenant " + tenant.name());
    }

    public static String write(ApiToken token) {
        return encode(token, "token " + token.key());
    }

    /**
     * @param where names the record for an operator, e.g. {@code tenant 'billing' in dq:{tenancy}:tenants}
     * @throws StoreException UNAVAILABLE when the JSON is not a tenant this version can read
     */
    public static Tenant readTenant(String json, String where) {
        return decode(TENANT, json, where);
    }

    /** As {@link #readTenant}, for a token. */
    public static ApiToken readToken(String json, String where) {
        return decode(TOKEN, json, where);
    }

    private static String encode(Object record, String what) {
        try {
            return MAPPER.writeValueAsString(record);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot encode " + what + " as JSON: " + e.getClass().getSimpleName());
        }
    }

    private static <T> T decode(ObjectReader reader, String json, String where) {
        try {
            return reader.readValue(json);
        } catch (JsonProcessingException e) {
            // no cause attached: Jackson's messages may quote a value, and a tenant's values include its secrets
            throw new StoreException(StoreStatus.UNAVAILABLE, where + " cannot be read by this version of delayq ("
                    + reason(e) + "); repair or delete the record");
        }
    }

    /** What is wrong, by the path of the field at fault and, for a value our records refuse, their own message. */
    static String reason(JsonProcessingException e) {
        String path = "";
        if (e instanceof JsonMappingException m && !m.getPath().isEmpty()) {
            path = "at " + m.getPath().stream()
                    .map(r -> r.getFieldName() != null ? r.getFieldName() : "[" + r.getIndex() + "]")
                    .collect(Collectors.joining(".")) + ": ";
        }
        if (e instanceof ValueInstantiationException && e.getCause() instanceof IllegalArgumentException refused) {
            // the records' own checks name fields and sizes, never a secret's value
            return path + refused.getMessage();
        }
        return path + (e instanceof JsonMappingException ? "a field of the wrong type or shape"
                : "not JSON") + " (" + e.getClass().getSimpleName() + ")";
    }
}
