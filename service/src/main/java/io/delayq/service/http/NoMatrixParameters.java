package io.delayq.service.http;

import io.delayq.service.errors.InvalidPathException;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.PreMatching;

/**
 * Refuses a path with a {@code ;} in it, before any resource is matched. JAX-RS reads {@code ;b} in a path segment as
 * a matrix parameter and leaves it out of the segment's value, so {@code POST /v1/topics/a;b/jobs} would schedule
 * into topic {@code a} and {@code PUT /v1/topics/a;b} would change topic {@code a}. This API has no matrix
 * parameters, and no topic name or job id contains {@code ;}; an encoded {@code %3B} is part of the value and is
 * refused by the topic and id rules instead.
 */
@PreMatching
public final class NoMatrixParameters implements ContainerRequestFilter {

    @Override
    public void filter(ContainerRequestContext request) {
        String path = request.getUriInfo().getRequestUri().getRawPath();
        if (path != null && path.indexOf(';') >= 0) {
            throw new InvalidPathException("The path contains ';', which this API does not accept (it would cut a topic"
                    + " name or job id short); topic names use A-Z, a-z, 0-9, '.', '_' and '-', job ids also ':'");
        }
    }
}
