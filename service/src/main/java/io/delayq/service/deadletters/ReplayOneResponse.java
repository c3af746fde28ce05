package io.delayq.service.deadletters;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.delayq.service.api.JobView;

/**
 * What a replay did.
 *
 * @param duplicate  true when this request repeated an earlier replay (a double click, or the same
 *                   {@code Idempotency-Key}) and scheduled nothing new
 * @param replay     the replay that applies
 * @param job        the replayed job as the store holds it now, when it still does
 * @param deadLetter the dead letter with the replay recorded
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ReplayOneResponse(boolean duplicate, DeadLetterView.ReplayView replay, JobView job,
                                DeadLetterView deadLetter) {
}
