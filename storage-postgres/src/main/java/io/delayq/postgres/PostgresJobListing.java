package io.delayq.postgres;

import io.delayq.core.Job;
import io.delayq.core.JobState;
import io.delayq.core.listing.JobCursor;
import io.delayq.core.listing.JobPage;
import io.delayq.core.listing.JobQuery;
import io.delayq.postgres.Rows.Listed;
import io.delayq.postgres.archive.PayloadContainment;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@link io.delayq.core.JobStore#listJobs} on PostgreSQL: one statement, {@code list_jobs.sql}, which walks the
 * topic's indexes from the cursor and examines at most {@link JobQuery#EXAMINE_PER_PAGE} jobs when a filter may reject
 * some (an id prefix, a payload field, some of the finished states), else {@code limit}.
 */
final class PostgresJobListing {
    /** Epoch ms a timestamptz holds (years 1 to 9999): bounds outside are moved to them, which lists the same jobs. */
    private static final long MIN_MS = -62_135_596_800_000L;
    private static final long MAX_MS = 253_402_300_799_999L;

    private final JobQueries queries;

    PostgresJobListing(JobQueries queries) {
        this.queries = queries;
    }

    JobPage list(JobQuery query) {
        boolean everyOneMatches = query.idPrefix() == null && query.payloadField() == null
                && (!query.finished() || query.states().containsAll(JobQuery.FINISHED));
        int cap = everyOneMatches ? query.limit() : Math.max(query.limit(), JobQuery.EXAMINE_PER_PAGE);
        JobCursor start = query.start();
        PayloadContainment payload = query.payloadField() == null ? null
                : PayloadContainment.of(query.payloadField(), query.payloadValue());
        String[] states = query.states().stream().map(s -> s.name().toLowerCase(Locale.ROOT)).toArray(String[]::new);
        List<Listed> rows = PostgresCalls.call("list jobs", () -> queries.listJobs(query.topic(), !query.finished(),
                query.states().contains(JobState.SCHEDULED), query.states().contains(JobState.LEASED), states,
                start == null ? MIN_MS : clamp(start.position()), start == null ? "" : start.id(),
                query.dueTo() == null ? MAX_MS + 1 : clamp(query.dueTo()), cap, query.limit(), query.idPrefix(),
                payload == null ? null : payload.asString(), payload == null ? null : payload.asLiteral()));
        List<Job> items = new ArrayList<>();
        for (Listed row : rows) {
            if (row.job() != null) {
                items.add(row.job());
            }
        }
        if (rows.isEmpty()) {
            return new JobPage(items, null, 0);
        }
        Listed last = rows.get(rows.size() - 1);
        // the walk reached the end of the range when it took fewer than it could; then nothing follows its last row
        boolean exhausted = last.walked() < cap;
        boolean more = !(exhausted && last.n() == last.walked());
        String next = more ? new JobCursor(last.positionMs(), last.id()).encode() : null;
        return new JobPage(items, next, rows.size());
    }

    private static long clamp(long ms) {
        return Math.max(MIN_MS, Math.min(MAX_MS, ms));
    }
}
