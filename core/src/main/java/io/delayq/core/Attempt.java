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
 * @param held       {@code true} when this entry is not an attempt but a hold (see {@link Failure#held}): the job was
 *                   postponed, {@code error} says why, and {@code number} was given back to the next lease;
 *                   {@code null} otherwise
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Attempt(int number, long at, String error, Integer httpStatus, Boolean held) {

    public Attempt {
        held = Boolean.TRUE.equals(held) ? Boolean.TRUE : null;
    }

    public Attempt(int number, long at, String error, Integer httpStatus) {
        this(number, at, error, httpStatus, null);
    }

    public boolean isHeld() {
        return held != null;
    }
}
