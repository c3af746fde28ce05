package io.delayq.service.errors;

/** Requests that are well-formed JSON but break a rule ({@link io.delayq.core.JobRules} and friends): 422. */
public final class IllegalArgumentExceptionMapper extends ProblemMapper<IllegalArgumentException> {
    @Override
    Problem problem(IllegalArgumentException e) {
        return Problem.of("invalid-request", 422, e.getMessage());
    }
}
