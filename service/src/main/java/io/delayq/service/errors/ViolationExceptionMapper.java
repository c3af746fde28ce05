package io.delayq.service.errors;

import io.dropwizard.jersey.validation.ConstraintMessage;
import io.dropwizard.jersey.validation.JerseyViolationException;

import java.util.List;

/**
 * Bean Validation failures of a request: 422 listing every violation under {@code errors}, or 400 when a parameter
 * (not the body) is invalid. Replaces Dropwizard's own mapper for the same type.
 */
public final class ViolationExceptionMapper extends ProblemMapper<JerseyViolationException> {
    @Override
    Problem problem(JerseyViolationException e) {
        List<String> errors = e.getConstraintViolations().stream()
                .map(v -> ConstraintMessage.getMessage(v, e.getInvocable()))
                .sorted()
                .toList();
        int status = ConstraintMessage.determineStatus(e.getConstraintViolations(), e.getInvocable());
        return Problem.of("invalid-request", status, String.join("; ", errors))
                .with("errors", errors);
    }
}
