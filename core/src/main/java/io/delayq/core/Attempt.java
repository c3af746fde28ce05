package io.delayq.core;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * One finished delivery attempt, kept in the job's history.
 *
 * @param number     1-based attempt number
 * @param at         when the attempt ended, epoch ms (the store's clock for store-made entries)
 * @param error      why it failed; {@code null} for the successful attempt
 * @param httpStatus the status code of a failed attempt that got an HTTP answer, else {@code null} (a success
 *                   is recorded without one: any 2xx)
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Attempt(int number, long at, String error, Integer httpStatus) {
}
