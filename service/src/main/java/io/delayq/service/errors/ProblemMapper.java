package io.delayq.service.errors;

import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import jakarta.ws.rs.ext.ExceptionMapper;

/**
 * The base of every mapper of the family: turns an exception into a {@link Problem} whose {@code instance} is the
 * request path.
 */
abstract class ProblemMapper<E extends Throwable> implements ExceptionMapper<E> {
    @Context
    private UriInfo uriInfo;

    abstract Problem problem(E exception);

    @Override
    public Response toResponse(E exception) {
        Problem problem = problem(exception);
        if (uriInfo != null) {
            problem = problem.withInstance("/" + uriInfo.getPath());
        }
        return problem.toResponse();
    }
}
