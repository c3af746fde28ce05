package io.delayq.client;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The {@code operationId} in the service's OpenAPI document that a client method sends. Every public method of
 * {@link DelayqClient} that talks to the service carries one, so that {@code OpenApiCoverageTest} can check that every
 * operation of the document has a typed method and that no method names an operation the document does not have.
 * Overloads and convenience forms of one operation (e.g. {@code ack(LeasedJob)} and {@code ack(topic, id, token)})
 * each carry the same id.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface Operation {
    /** The operation's {@code operationId}, e.g. {@code "scheduleJob"}. */
    String value();
}
