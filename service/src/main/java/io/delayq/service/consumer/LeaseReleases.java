package io.delayq.service.consumer;

import io.delayq.core.Attempt;
import io.delayq.core.Failure;
import io.delayq.core.Job;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Releases of a lease by its consumer ({@code POST …/release}): the lease goes back without using its attempt, as the
 * engine's held nack does ({@link Failure#held}), at most {@code maxAttempts} times per job; after that a release
 * counts as the attempt, so a consumer that only ever releases still lets the job end.
 *
 * <p>The count is read from the job's history, without a store change: each free release is a held entry whose error
 * says {@code "released by the consumer (release <n> of at most <max> that use no attempt)"}, and the count is the
 * highest {@code n} among them. Numbering the entries, rather than counting them, keeps the count right when the
 * store trims the history's oldest entries (its {@code historySize}), as long as the newest release entry survives:
 * it would take more than {@code historySize} later entries (attempts, breaker holds, reschedules) to lose it, and
 * then the count restarts, granting more free releases than {@code maxAttempts}. A store-kept count would close that
 * (see the report of issue 26, finding 23).
 */
public final class LeaseReleases {
    static final String PREFIX = "released by the consumer";
    private static final Pattern NUMBERED = Pattern.compile("^" + PREFIX + " \\(release (\\d+) of ");

    private LeaseReleases() {
    }

    /** Whether a history entry is a consumer's release (not a circuit breaker's hold). */
    public static boolean isRelease(Attempt entry) {
        return entry.isHeld() && entry.error() != null && entry.error().startsWith(PREFIX);
    }

    /** The free releases the job has had. */
    static int count(List<Attempt> history) {
        int highest = 0;
        for (Attempt entry : history) {
            if (isRelease(entry)) {
                Matcher m = NUMBERED.matcher(entry.error());
                if (m.find()) {
                    highest = Math.max(highest, Integer.parseInt(m.group(1)));
                }
            }
        }
        return highest;
    }

    /** What the store is told for a release of {@code job}'s current lease: a hold while free, else the attempt. */
    static Failure of(Job job) {
        int released = count(job.history());
        int max = job.maxAttempts();
        if (released < max) {
            return Failure.held(0, PREFIX + " (release " + (released + 1) + " of at most " + max
                    + " that use no attempt)");
        }
        String error = PREFIX + " after " + released + " releases that used no attempt (at most maxAttempts, " + max
                + "): this release counts as the attempt";
        return job.isLastAttempt() ? Failure.dead(error, null) : Failure.retryAfter(0, error, null);
    }
}
