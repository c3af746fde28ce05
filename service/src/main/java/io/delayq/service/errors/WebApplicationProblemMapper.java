package io.delayq.service.errors;

import io.delayq.core.JobRules;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.NotAcceptableException;
import jakarta.ws.rs.NotAllowedException;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.NotSupportedException;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;
import org.glassfish.jersey.server.ParamException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.ThreadLocalRandom;

/**
 * JAX-RS's own refusals (unknown path 404, 405, 406, 415, the auth filter's 401/403 …) as problem+json. Headers of the
 * original answer, such as {@code WWW-Authenticate} and {@code Allow}, are kept.
 */
public final class WebApplicationProblemMapper extends ProblemMapper<WebApplicationException> {
    private static final Logger LOG = LoggerFactory.getLogger(WebApplicationProblemMapper.class);

    @Override
    public Response toResponse(WebApplicationException e) {
        Response original = e.getResponse();
        Response problem = super.toResponse(e);
        var builder = Response.fromResponse(problem);
        original.getHeaders().forEach((name, values) -> {
            if (!name.equalsIgnoreCase("Content-Type") && !name.equalsIgnoreCase("Content-Length")) {
                builder.header(name, null);
                values.forEach(v -> builder.header(name, v));
            }
        });
        return builder.type(Problem.MEDIA).build();
    }

    @Override
    Problem problem(WebApplicationException e) {
        int status = e.getResponse().getStatus();
        if (status >= 500) {
            String id = String.format("%016x", ThreadLocalRandom.current().nextLong());
            LOG.error("Error handling a request: {}", id, e);
            return Problem.of("server-error", status, "The service could not handle the request (HTTP " + status
                    + "). It has been logged (ID " + id + ").").with("errorId", id);
        }
        if (e instanceof ParamException param) {
            // JAX-RS answers 404 for a query or path parameter it cannot convert: the value is wrong, not the path.
            return Problem.of("invalid-parameter", 400, "The " + where(param) + " parameter "
                    + JobRules.quote(param.getParameterName()) + " " + reason(param))
                    .with("parameter", param.getParameterName());
        }
        if (e instanceof InvalidFieldsException fields) {
            return Problem.of("invalid-fields", status, detail(e, status)).with("fields", fields.fields());
        }
        return Problem.of(kind(e, status), status, detail(e, status));
    }

    private static String where(ParamException e) {
        Class<?> source = e.getParameterType();
        if (source == QueryParam.class) {
            return "query";
        }
        if (source == PathParam.class) {
            return "path";
        }
        if (source == HeaderParam.class) {
            return "header";
        }
        return "request";
    }

    private static String reason(ParamException e) {
        Throwable cause = e.getCause();
        while (cause != null && cause.getCause() != null && cause.getCause() != cause
                && !(cause instanceof IllegalArgumentException)) {
            cause = cause.getCause();
        }
        return cause == null || cause.getMessage() == null ? "is invalid" : cause.getMessage();
    }

    private static String kind(WebApplicationException e, int status) {
        if (e instanceof InvalidPathException) {
            return "invalid-path";
        }
        return switch (status) {
            case 401 -> "unauthorized";
            case 403 -> "forbidden";
            case 400 -> "bad-request";
            case 404 -> "not-found";
            case 405 -> "method-not-allowed";
            case 406 -> "not-acceptable";
            case 409 -> "conflict";
            case 413 -> "request-too-large";
            case 415 -> "unsupported-media-type";
            case 429 -> "too-many-requests";
            default -> "http-" + status;
        };
    }

    private static String detail(WebApplicationException e, int status) {
        String message = e.getMessage();
        boolean generic = message == null || message.startsWith("HTTP " + status);
        if (!generic) {
            return message;
        }
        if (e instanceof NotFoundException) {
            return "There is no such resource; the API is described at /openapi.yaml";
        }
        if (e instanceof NotAllowedException) {
            return "This method is not allowed here; allowed: " + e.getResponse().getAllowedMethods();
        }
        if (e instanceof NotAcceptableException) {
            return "This API answers application/json; send Accept: application/json, or no Accept header";
        }
        if (e instanceof NotSupportedException) {
            return "Send the body as application/json (Content-Type: application/json)";
        }
        return message == null ? "HTTP " + status : message;
    }
}
