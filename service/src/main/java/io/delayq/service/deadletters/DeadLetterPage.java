package io.delayq.service.deadletters;

import com.fasterxml.jackson.annotation.JsonInclude;

import java.util.List;

/**
 * One page of dead letters, newest first.
 *
 * @param items      the dead letters
 * @param nextCursor pass as {@code cursor} for the next page; absent on the last page
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record DeadLetterPage(List<DeadLetterView> items, String nextCursor) {
}
