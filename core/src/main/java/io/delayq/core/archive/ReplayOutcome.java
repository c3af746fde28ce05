package io.delayq.core.archive;

import io.delayq.core.Job;

/**
 * The result of replaying one dead letter.
 *
 * @param deadLetter the dead letter, with the replay recorded (or as last read, for a replay that had already
 *                   finished when a purge of its letter overtook it)
 * @param replay     the replay that applies: the new one, or the earlier one a duplicate request found
 * @param duplicate  true when this request scheduled nothing because it repeated an earlier replay
 * @param job        the replayed job as the store holds it, or {@code null} when the store no longer has it
 */
public record ReplayOutcome(DeadLetter deadLetter, DeadLetter.Replay replay, boolean duplicate, Job job) {
}
