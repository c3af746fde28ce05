package io.delayq.client;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/**
 * What replaying one dead letter did.
 *
 * @param duplicate  true when the request repeated an earlier replay and scheduled nothing new
 * @param replay     the replay that applies (its {@code newJobId} is the fresh job)
 * @param job        the replayed job, when the service still holds it
 * @param deadLetter the dead letter with the replay recorded
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record ReplayResult(boolean duplicate, DeadLetter.Replay replay, JobInfo job, DeadLetter deadLetter) {
}
