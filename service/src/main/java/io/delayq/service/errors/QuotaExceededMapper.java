package io.delayq.service.errors;

import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;

/** {@link QuotaExceededException} as problem+json, with its own {@code Retry-After} for a 429. */
public final class QuotaExceededMapper extends ProblemMapper<QuotaExceededException> {
    @Override
    Problem problem(QuotaExceededException e) {
        return e.problem();
    }

    @Override
    public Response toResponse(QuotaExceededException e) {
        Response answer = super.toResponse(e);
        var builder = Response.fromResponse(answer).header(HttpHeaders.RETRY_AFTER, null);
        if (e.retryable()) {
            builder.header(HttpHeaders.RETRY_AFTER, e.retryAfterSeconds());
        }
        return builder.build();
    }
}
