package io.delayq.service.deadletters;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.delayq.core.StoreException;
import io.delayq.core.archive.BulkReplayResult;

import java.util.List;

/**
 * What a bulk replay did: how many dead letters it replayed, found replayed already, or could not replay (each with
 * the reason), and where to continue.
 *
 * @param replayed   dead letters replayed now
 * @param duplicates dead letters found already replayed (by a request moments ago); nothing new was scheduled
 * @param failed     dead letters that could not be replayed; see {@code failures}
 * @param failures   one per failed dead letter, in the order they were taken
 * @param more       true when more dead letters match: call again with {@code cursor: nextCursor} to go on
 * @param nextCursor where this request stopped; absent when nothing is left
 * @param stopped    present when the request stopped early because the store or the archive could not be reached
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record BulkReplayResponse(int replayed, int duplicates, int failed, List<Failure> failures, boolean more,
                                 String nextCursor, String stopped) {

    /**
     * One dead letter that could not be replayed. Nothing was recorded on it, so it is still listed as not replayed.
     *
     * @param key    the dead letter's key ({@code <topic>/<id>/<createdAt>})
     * @param topic  its topic
     * @param id     the dead job's id
     * @param status what replaying it alone would have answered: 404 (purged meanwhile), 409 (its replay id is
     *               taken by another job), 422 (refused by the rules), 500 (anything else; see the log)
     * @param reason why, for a person
     */
    public record Failure(String key, String topic, String id, int status, String reason) {
        static Failure of(BulkReplayResult.LetterOutcome letter) {
            return new Failure(letter.key(), letter.ref().topic(), letter.ref().id(), status(letter.error()),
                    letter.error().getMessage());
        }

        private static int status(RuntimeException error) {
            if (error instanceof StoreException e) {
                return switch (e.status()) {
                    case NOT_FOUND -> 404;
                    case CONFLICT, STALE_LEASE, NOT_IN_STATE -> 409;
                    case UNAVAILABLE -> 503;
                    case OK -> 500;
                };
            }
            return error instanceof IllegalArgumentException ? 422 : 500;
        }
    }

    static BulkReplayResponse of(BulkReplayResult result) {
        return new BulkReplayResponse(result.replayed(), result.alreadyReplayed(), result.failed(),
                result.failures().stream().map(Failure::of).toList(), result.more(), result.nextCursor(),
                result.stopped());
    }
}
