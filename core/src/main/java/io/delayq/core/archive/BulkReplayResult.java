package io.delayq.core.archive;

import io.delayq.core.JobRef;

import java.util.List;
import java.util.Objects;

/**
 * What a bulk replay did, letter by letter, in the order it took them (newest first).
 *
 * @param letters    one outcome per dead letter taken
 * @param more       true when it stopped before the end of the listing (at its maximum, or because the store or the
 *                   archive could not be reached) and more dead letters match
 * @param nextCursor where to continue: pass it as the next request's cursor to take the letters after these (letters
 *                   that failed are then not tried again); {@code null} when nothing is left
 * @param stopped    why it stopped before its maximum, when the store or the archive could not be reached;
 *                   {@code null} otherwise
 */
public record BulkReplayResult(List<LetterOutcome> letters, boolean more, String nextCursor, String stopped) {

    public BulkReplayResult {
        letters = List.copyOf(letters);
    }

    /** Letters replayed by this request. */
    public int replayed() {
        return count(Outcome.REPLAYED);
    }

    /** Letters found replayed already (a concurrent or repeated replay): nothing new was scheduled for them. */
    public int alreadyReplayed() {
        return count(Outcome.ALREADY_REPLAYED);
    }

    /** Letters that could not be replayed; see {@link #failures()}. */
    public int failed() {
        return count(Outcome.FAILED);
    }

    public List<LetterOutcome> failures() {
        return letters.stream().filter(l -> l.outcome() == Outcome.FAILED).toList();
    }

    private int count(Outcome outcome) {
        return (int) letters.stream().filter(l -> l.outcome() == outcome).count();
    }

    /** What happened to one dead letter. */
    public enum Outcome {
        /** A job was scheduled for it now. */
        REPLAYED,
        /** It had been replayed moments ago by another request; that replay stands and nothing new was scheduled. */
        ALREADY_REPLAYED,
        /** It could not be replayed; the error says why. Nothing was recorded on it. */
        FAILED
    }

    /**
     * @param key      the dead letter's {@link DeadLetter#key()}
     * @param ref      the dead job
     * @param outcome  what happened
     * @param newJobId the replay's job id, unless it failed
     * @param error    why it failed ({@link io.delayq.core.StoreException} with its status, or
     *                 {@link IllegalArgumentException} for a letter the rules refuse), {@code null} otherwise
     */
    public record LetterOutcome(String key, JobRef ref, Outcome outcome, String newJobId, RuntimeException error) {
        public LetterOutcome {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(outcome, "outcome");
        }

        static LetterOutcome of(DeadLetter letter, ReplayOutcome replayed) {
            Outcome outcome = replayed.duplicate() ? Outcome.ALREADY_REPLAYED : Outcome.REPLAYED;
            return new LetterOutcome(letter.key(), letter.ref(), outcome, replayed.replay().newJobId(), null);
        }

        static LetterOutcome failed(DeadLetter letter, RuntimeException error) {
            return new LetterOutcome(letter.key(), letter.ref(), Outcome.FAILED, null, error);
        }
    }
}
