package io.delayq.service.errors;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.ThreadLocalRandom;

/**
 * Everything no other mapper claims is a bug or an outage: 500, logged with a random id that the answer repeats so
 * an operator can find the stack trace. Replaces Dropwizard's {@code LoggingExceptionMapper<Throwable>}.
 */
public final class CatchAllMapper extends ProblemMapper<Throwable> {
    private static final Logger LOG = LoggerFactory.getLogger(CatchAllMapper.class);

    @Override
    Problem problem(Throwable e) {
        String id = String.format("%016x", ThreadLocalRandom.current().nextLong());
        LOG.error("Error handling a request: {}", id, e);
        return Problem.of("internal-error", 500,
                "There was an error processing your request. It has been logged (ID " + id + ").")
                .with("errorId", id);
    }
}
