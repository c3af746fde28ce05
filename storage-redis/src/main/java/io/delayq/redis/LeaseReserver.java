package io.delayq.redis;

import io.delayq.core.Delivery;
import io.delayq.core.Failure;
import io.delayq.core.JobRef;
import io.delayq.core.Lease;
import io.delayq.core.LeaseRef;
import io.delayq.core.LeaseToken;
import io.delayq.core.ReserveResult;
import io.delayq.core.StoreException;
import io.delayq.redis.RedisKeys.Partition;
import io.delayq.redis.Scripts.Op;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.Response;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.resps.Tuple;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

/**
 * Hands out leases ({@code reserve.lua}): one script call for a topic of one partition; over several, two pipelines
 * shared fairly among the partitions ({@link #reserveAcross}). A leased record this code cannot decode is ended at
 * once, DEAD, through {@link LeaseTransitions#nack}.
 */
final class LeaseReserver {
    private static final Logger LOG = LoggerFactory.getLogger(LeaseReserver.class);
    private static final int MAX_RESERVE = 9_999;

    private final RedisCalls calls;
    private final TopicPartitions topics;
    private final LeaseTransitions transitions;
    private final RecordCodec codec;
    private final String retentionMs;
    private final LongSupplier now;
    /** Where the next reserve over several partitions starts breaking ties, so no partition always wins them. */
    private final AtomicInteger turn = new AtomicInteger();

    /** @param now the server's clock, for an answer no script gave a time for */
    LeaseReserver(RedisCalls calls, TopicPartitions topics, LeaseTransitions transitions, RecordCodec codec,
                  ScriptArgs scriptArgs, LongSupplier now) {
        this.calls = calls;
        this.topics = topics;
        this.transitions = transitions;
        this.codec = codec;
        this.retentionMs = scriptArgs.retentionMs();
        this.now = now;
    }

    ReserveResult reserve(String topic, Delivery lane, int max, long defaultLeaseMs, long expiresAfterMs) {
        if (max < 1) {
            throw new IllegalArgumentException("max must be at least 1");
        }
        int wanted = Math.min(MAX_RESERVE, max);
        Partition[] ps = topics.partitions(topic);
        if (ps.length == 1) {
            List<Lease> leases = new ArrayList<>();
            long[] nextAndNow = reservePartition(ps[0], lane, wanted, defaultLeaseMs, expiresAfterMs, leases);
            return new ReserveResult(leases, nextAndNow[0], nextAndNow[1], (int) nextAndNow[2]);
        }
        return reserveAcross(ps, lane, wanted, defaultLeaseMs, expiresAfterMs);
    }

    /**
     * Reserve over several partitions in two pipelines, each one round trip per node (before: two sequential calls
     * per partition): the first reads each partition's earliest {@code wanted} entries of the lane, the second runs
     * the reserve script on the partitions that get a share ({@link ReserveShares}: earliest first across partitions,
     * but every partition with entries is guaranteed {@code wanted / (2 × those partitions)}, so that a partition
     * whose backlog is always older cannot starve the others; ties go to a rotating partition).
     *
     * <p>A partition whose node fails its part (a failover, a slot being moved: MOVED, ASK, TRYAGAIN, a node that did
     * not answer) is left out of this reserve instead of failing it: the leases the other partitions' scripts made are
     * handed out rather than stranded until they expire, so the partitions of healthy masters keep delivering. The
     * answer's next due time is then at most {@value RedisJobStore#RETRY_FAILED_PARTITION_MS} ms away, so the caller
     * comes back for the partition left out; the call fails (UNAVAILABLE) only when every partition failed.
     */
    private ReserveResult reserveAcross(Partition[] ps, Delivery lane, int wanted, long defaultLeaseMs,
                                        long expiresAfterMs) {
        List<Partition> all = Arrays.asList(ps);
        List<RuntimeException> failures = new ArrayList<>();
        List<List<Tuple>> heads = calls.eachPartition("reserve", all.size(), failures, pipe -> all.stream()
                .map(p -> pipe.zrangeWithScores(p.scheduled(lane), 0, wanted - 1)).toList());
        long[][] scores = new long[ps.length][];
        for (int i = 0; i < ps.length; i++) {
            List<Tuple> head = heads.get(i);
            scores[i] = head == null ? new long[0] : head.stream().mapToLong(t -> (long) t.getScore()).toArray();
        }
        int[] share = ReserveShares.of(scores, wanted, Math.floorMod(turn.getAndIncrement(), ps.length));
        List<Partition> chosen = new ArrayList<>();
        List<List<String>> keys = new ArrayList<>();
        List<List<String>> args = new ArrayList<>();
        long next = -1;
        for (int i = 0; i < ps.length; i++) {
            if (share[i] == 0) {
                next = TopicReads.earlier(next, scores[i].length == 0 ? -1 : scores[i][0]);
                continue;
            }
            chosen.add(ps[i]);
            keys.add(keys(ps[i], lane));
            args.add(args(share[i], defaultLeaseMs, expiresAfterMs));
        }
        List<Lease> leases = new ArrayList<>();
        long serverNow = -1;
        int expired = 0;
        if (!chosen.isEmpty()) {
            Scripts scripts = calls.scripts();
            List<Object> answers = calls.eachPartition("reserve", chosen.size(), failures, pipe -> {
                List<Response<Object>> sent = new ArrayList<>(chosen.size());
                for (int c = 0; c < chosen.size(); c++) {
                    sent.add(pipe.evalsha(scripts.sha(Op.RESERVE), keys.get(c), args.get(c)));
                }
                return sent;
            });
            for (int c = 0; c < chosen.size(); c++) {
                Object answer = answers.get(c);
                if (answer instanceof JedisException e && Scripts.isNoScript(e)) {
                    // did not run: loaded and run on its own (a failure here fails the call, as for one partition)
                    int i = c;
                    answer = calls.call("reserve", () -> scripts.eval(Op.RESERVE, keys.get(i), args.get(i)));
                }
                if (answer == null) {
                    continue;
                }
                long[] nextAndNow = readAnswer(chosen.get(c), (List<?>) answer, leases);
                next = TopicReads.earlier(next, nextAndNow[0]);
                serverNow = Math.max(serverNow, nextAndNow[1]);
                expired += (int) nextAndNow[2];
            }
        }
        if (serverNow < 0) {
            serverNow = now.getAsLong();
        }
        if (!failures.isEmpty()) {
            calls.nodes().refreshSoon();
            next = TopicReads.earlier(next, serverNow + RedisJobStore.RETRY_FAILED_PARTITION_MS);
            LOG.debug("reserve on topic {}: {} partition part(s) failed and were left out ({}); {} lease(s) from the"
                    + " others", ps[0].topic(), failures.size(), failures.get(0).toString(), leases.size());
        }
        leases.sort(Comparator.comparingLong(l -> l.job().runAt()));
        return new ReserveResult(leases, next, serverNow, expired);
    }

    private static List<String> keys(Partition p, Delivery lane) {
        return List.of(p.jobs(), p.scheduled(lane), p.leased(), p.finished(), p.quarantine(), p.archive(), p.stats());
    }

    /**
     * The script's arguments; its third, a token for each lease it may make, drawn here because Lua has no CSPRNG: one
     * string of {@code count} tokens of {@value LeaseToken#LENGTH} characters (one argument, not {@code count}).
     */
    private List<String> args(int count, long defaultLeaseMs, long expiresAfterMs) {
        return List.of(Integer.toString(count), Long.toString(defaultLeaseMs), LeaseToken.randomTexts(count),
                retentionMs, Long.toString(Math.max(0, expiresAfterMs)));
    }

    /**
     * Runs the reserve script on one partition, adding its leases; returns {nextDueAt, now, expired}. A leased record this code
     * cannot decode costs the others nothing: it is made DEAD at once (its attempt cannot be made), so that it reaches
     * the outbox, and from there the archiver's quarantine, instead of coming back at every lease expiry.
     */
    private long[] reservePartition(Partition p, Delivery lane, int count, long defaultLeaseMs, long expiresAfterMs,
                                    List<Lease> leases) {
        List<?> answer = (List<?>) calls.call("reserve", () -> calls.scripts().eval(Op.RESERVE, keys(p, lane),
                args(count, defaultLeaseMs, expiresAfterMs)));
        return readAnswer(p, answer, leases);
    }

    /** Adds the leases of one reserve script answer; returns {nextDueAt, now, expired}. */
    private long[] readAnswer(Partition p, List<?> answer, List<Lease> leases) {
        int quarantined = ((Long) answer.get(2)).intValue();
        long expired = (Long) answer.get(3);
        LeaseTransitions.logQuarantined(p, answer.subList(4, 4 + 2 * quarantined), "reserve");
        List<LeaseRef> unreadable = new ArrayList<>();
        List<String> reasons = new ArrayList<>();
        for (int a = 4 + 2 * quarantined; a + 3 < answer.size(); a += 4) {
            String id = (String) answer.get(a);
            LeaseToken token = new LeaseToken((String) answer.get(a + 1));
            long deadline = Long.parseLong((String) answer.get(a + 2));
            try {
                leases.add(new Lease(codec.decode(p.topic(), id, (String) answer.get(a + 3)), token, deadline));
            } catch (RuntimeException e) {
                unreadable.add(new LeaseRef(new JobRef(p.topic(), id), token));
                reasons.add(String.valueOf(e.getMessage()));
            }
        }
        for (int i = 0; i < unreadable.size(); i++) {
            failUnreadable(unreadable.get(i), reasons.get(i));
        }
        return new long[] {Long.parseLong((String) answer.get(1)), Long.parseLong((String) answer.get(0)), expired};
    }

    /**
     * Ends a leased job this code cannot decode. Should the store fail now, the lease is left to expire and the job
     * comes back to a later reserve, which tries again: the leases decoded beside it are handed out either way.
     */
    private void failUnreadable(LeaseRef lease, String reason) {
        LOG.error("Job {} cannot be read by this version of delayq ({}); it is made DEAD without an attempt, and its"
                + " dead letter goes to the outbox", lease.job(), reason);
        try {
            transitions.nack(lease, Failure.dead("the stored job cannot be read by this version of delayq: " + reason, null,
                    io.delayq.core.DeadCause.UNREADABLE));
        } catch (StoreException e) {
            LOG.warn("Could not end unreadable job {} now; it comes back when its lease expires: {}", lease.job(),
                    e.getMessage());
        }
    }
}
