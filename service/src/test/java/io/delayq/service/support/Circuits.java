package io.delayq.service.support;

import com.fasterxml.jackson.databind.JsonNode;
import io.delayq.service.auth.Scope;
import io.delayq.service.support.Api.Answer;

import static org.assertj.core.api.Assertions.assertThat;

/** Reads one origin's circuit from {@code GET /v1/admin/circuits}, as a token or an operator viewing a tenant sees it. */
public final class Circuits {
    private static final String LIST = "/v1/admin/circuits?limit=1000";

    private Circuits() {
    }

    /** The circuit of {@code origin} in what {@code api}'s token is shown, or null when it is not listed. */
    public static JsonNode of(Api api, String origin) {
        return find(api.get(LIST), origin);
    }

    /** The circuit of {@code origin} as an operator viewing {@code tenant} is shown it, or null. */
    public static JsonNode viewing(Api operator, String tenant, String origin) {
        return find(operator.send(operator.request(LIST).header(Scope.VIEW_HEADER, tenant).GET()), origin);
    }

    private static JsonNode find(Answer list, String origin) {
        assertThat(list.status()).as(list.toString()).isEqualTo(200);
        for (JsonNode c : list.json().path("items")) {
            if (origin.equals(c.path("origin").asText())) {
                return c;
            }
        }
        return null;
    }
}
