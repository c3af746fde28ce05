package io.delayq.redis;

import io.delayq.core.Job;
import io.delayq.core.JobState;
import io.delayq.core.listing.JobCursor;
import io.delayq.core.listing.JobPage;
import io.delayq.core.listing.JobQuery;
import io.delayq.redis.RedisKeys.Partition;
import io.delayq.redis.Scripts.Op;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Pattern;

/**
 * {@link io.delayq.core.JobStore#listJobs} on Redis: {@code list_jobs.lua} on every partition of the topic (one
 * pipeline), each walking its sorted sets from the cursor, then a merge by (position, id).
 *
 * <p>Why the merge stays exact: a partition's walk ends at {@code limit} matches, at its examine budget, or at the end
 * of its range, and answers where it stopped. Everything up to that point of that partition has been looked at. The
 * page keeps only the matches up to the earliest such stop over all partitions (the frontier) and, of those, the first
 * {@code limit}; its cursor is the last kept job, or the frontier when fewer were kept. So every job up to the cursor,
 * in every partition, was seen by this page or an earlier one, and none after it was listed: no repeat, no skip.
 *
 * <p>Budget: a query whose every walked job matches (no id prefix, no payload field, every state of the ZSETs walked)
 * walks at most {@code limit} per partition; any other walks at most {@link JobQuery#EXAMINE_PER_PAGE} over all
 * partitions (split evenly between them).
 */
final class RedisJobListing {
    private static final Logger LOG = LoggerFactory.getLogger(RedisJobListing.class);
    private static final Pattern JSON_NUMBER = Pattern.compile("-?(0|[1-9]\\d*)(\\.\\d+)?([eE][+-]?\\d+)?");

    private final RedisCalls calls;
    private final TopicPartitions topics;
    private final RecordCodec codec;

    RedisJobListing(RedisCalls calls, TopicPartitions topics, RecordCodec codec) {
        this.calls = calls;
        this.topics = topics;
        this.codec = codec;
    }

    JobPage list(JobQuery query) {
        Partition[] ps = topics.partitions(query.topic());
        boolean everyOneMatches = query.idPrefix() == null && query.payloadField() == null
                && (!query.finished() || query.states().containsAll(JobQuery.FINISHED));
        int cap = everyOneMatches ? query.limit()
                : Math.max(1, (JobQuery.EXAMINE_PER_PAGE + ps.length - 1) / ps.length);
        List<String> args = arguments(query, cap);
        List<List<String>> keys = new ArrayList<>(ps.length);
        List<List<String>> argsEach = new ArrayList<>(ps.length);
        for (Partition p : ps) {
            keys.add(List.of(p.jobs(), p.schedPush(), p.schedPull(), p.leased(), p.finished()));
            argsEach.add(args);
        }
        List<Object> answers = calls.evalAll(Op.LIST_JOBS, keys, argsEach);

        JobCursor frontier = null; // the earliest stop of a partition that did not reach its range's end
        long examined = 0;
        List<Listed> matches = new ArrayList<>();
        for (Object answer : answers) {
            List<?> out = (List<?>) answer;
            boolean done = ((Long) out.get(0)) == 1L;
            examined += (Long) out.get(3);
            if (!done) {
                JobCursor stop = new JobCursor(Long.parseLong((String) out.get(1)), (String) out.get(2));
                frontier = frontier == null || stop.compareTo(frontier) < 0 ? stop : frontier;
            }
            for (int i = 4; i + 2 < out.size(); i += 3) {
                String id = (String) out.get(i);
                matches.add(new Listed(new JobCursor(Long.parseLong((String) out.get(i + 1)), id),
                        (String) out.get(i + 2)));
            }
        }
        matches.sort(Comparator.comparing(Listed::at));
        List<Job> items = new ArrayList<>();
        int kept = 0;
        JobCursor last = null;
        boolean heldBack = false;
        for (Listed m : matches) {
            if (frontier != null && m.at().compareTo(frontier) > 0) {
                break;
            }
            if (kept == query.limit()) {
                heldBack = true;
                break;
            }
            kept++;
            last = m.at();
            try {
                items.add(codec.decode(query.topic(), m.at().id(), m.record()));
            } catch (RuntimeException e) {
                // a damaged record costs the listing nothing: the transitions quarantine it when they meet it
                LOG.warn("job {}/{} is left out of a listing: its record cannot be decoded ({})", query.topic(),
                        m.at().id(), e.toString());
            }
        }
        JobCursor next;
        if (kept == query.limit()) {
            next = heldBack || frontier != null ? last : null;
        } else {
            next = frontier; // every match up to it is on this page
        }
        return new JobPage(items, next == null ? null : next.encode(), examined);
    }

    private static List<String> arguments(JobQuery query, int cap) {
        JobCursor start = query.start();
        StringBuilder letters = new StringBuilder();
        for (JobState s : query.states()) {
            letters.append(switch (s) {
                case SCHEDULED -> 'S';
                case LEASED -> 'L';
                case SUCCEEDED -> 'Y';
                case DEAD -> 'D';
                case CANCELLED -> 'C';
            });
        }
        String value = query.payloadValue() == null ? "" : query.payloadValue();
        return List.of(query.finished() ? "F" : "P", letters.toString(),
                start == null ? "" : Long.toString(start.position()), start == null ? "" : start.id(),
                query.dueTo() == null ? "" : Long.toString(query.dueTo()),
                Integer.toString(query.limit()), Integer.toString(cap),
                query.idPrefix() == null ? "" : query.idPrefix(),
                query.payloadField() == null ? "" : query.payloadField(), value,
                JSON_NUMBER.matcher(value).matches() ? value : "",
                value.equals("true") || value.equals("false") ? value : "");
    }

    private record Listed(JobCursor at, String record) {
    }
}
