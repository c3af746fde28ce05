package io.delayq.service.deadletters;

/**
 * Which dead letters a bulk replay or purge takes. Times are RFC 3339 ({@code 2026-11-22T08:00:00Z}) only.
 *
 * @param topic           only this topic
 * @param from            died at or after
 * @param to              died before
 * @param includeReplayed replay: also those replayed before (default false); purge: ignored
 * @param replayed        true = only replayed ones, false = only never replayed ones, as in the list; a replay
 *                        without it takes the never replayed ones (all with {@code includeReplayed})
 * @param delayMs         replay only: run the replayed jobs this long from now
 * @param max             replay only: at most this many per request (default 1000, at most 10000)
 * @param cursor          replay only: the {@code nextCursor} of the previous answer, to go on after the dead letters it
 *                        took (without it a replay starts from the newest, and tries failed ones again)
 * @param expectedCount   purge only: how many letters the operator confirmed; more matching is a 409 and nothing
 *                        is purged
 * @param cause           only letters that died of this ({@code EXPIRED}, {@code NO_RETRY}, …), as the list's
 *                        {@code cause}
 */
public record DeadLetterFilter(String topic, String from, String to, Boolean includeReplayed, Boolean replayed,
                               Long delayMs, Integer max, String cursor, Long expectedCount, String cause) {

    static DeadLetterFilter none() {
        return new DeadLetterFilter(null, null, null, null, null, null, null, null, null, null);
    }
}
