package io.delayq.service.errors;

import io.delayq.core.StoreException;
import io.delayq.core.StoreStatus;
import jakarta.ws.rs.ServiceUnavailableException;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every 503 and 429 the service answers says when to come back ({@code Retry-After}, in seconds), whichever mapper
 * writes it; other answers do not. The end-to-end 503s (store down, archive down) are in health.OutageTest. The
 * service answers no 429 of its own yet: these check that one would carry the header.
 */
class RetryAfterHeaderTest {
    private static final String SECONDS = String.valueOf(Problem.RETRY_AFTER_SECONDS);

    @Test
    void a429AndA503ProblemCarryRetryAfter() {
        assertThat(Problem.of("too-many-requests", 429, "slow down").toResponse().getHeaderString("Retry-After"))
                .isEqualTo(SECONDS);
        assertThat(Problem.of("store-unavailable", 503, "down").toResponse().getHeaderString("Retry-After"))
                .isEqualTo(SECONDS);
        assertThat(Problem.RETRY_AFTER_SECONDS).as("a few seconds").isBetween(1, 5);
    }

    @Test
    void otherStatusesDoNot() {
        for (int status : new int[]{400, 404, 409, 413, 422, 500, 502, 504}) {
            assertThat(Problem.of("x", status, "d").toResponse().getHeaderString("Retry-After")).as("%d", status)
                    .isNull();
        }
    }

    @Test
    void theStoreMappersUnavailableCarriesRetryAfter() {
        Response response = new StoreExceptionMapper().toResponse(
                new StoreException(StoreStatus.UNAVAILABLE, "Redis did not answer"));
        assertThat(response.getStatus()).isEqualTo(503);
        assertThat(response.getHeaderString("Retry-After")).isEqualTo(SECONDS);
        assertThat(new StoreExceptionMapper().toResponse(new StoreException(StoreStatus.CONFLICT, "taken"))
                .getHeaderString("Retry-After")).isNull();
    }

    @Test
    void aJaxRs429Or503GetsRetryAfterAndOneOfItsOwnIsKept() {
        WebApplicationProblemMapper mapper = new WebApplicationProblemMapper();
        Response tooMany = mapper.toResponse(new WebApplicationException(429));
        assertThat(tooMany.getStatus()).isEqualTo(429);
        assertThat(tooMany.getMediaType()).isEqualTo(Problem.MEDIA);
        assertThat(tooMany.getHeaderString("Retry-After")).isEqualTo(SECONDS);

        Response own = mapper.toResponse(new ServiceUnavailableException(30L));
        assertThat(own.getStatus()).isEqualTo(503);
        assertThat(own.getHeaders().get("Retry-After")).as("the thrower's, not also ours").singleElement()
                .hasToString("30");
    }

    @Test
    void onlyA503OrA429AsksToRetry() {
        assertThat(Problem.asksToRetry(503)).isTrue();
        assertThat(Problem.asksToRetry(429)).isTrue();
        assertThat(Problem.asksToRetry(500)).isFalse();
        assertThat(Problem.asksToRetry(404)).isFalse();
    }
}
