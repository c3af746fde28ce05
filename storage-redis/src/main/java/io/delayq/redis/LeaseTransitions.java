package io.delayq.redis;

import io.delayq.core.Failure;
import io.delayq.core.JobRef;
import io.delayq.core.JobStore;
import io.delayq.core.LeaseRef;
import io.delayq.core.NackOutcome;
import io.delayq.core.ReclaimedLeases;
import io.delayq.core.StoreException;
import io.delayq.core.StoreStatus;
import io.delayq.redis.RedisKeys.Partition;
import io.delayq.redis.Scripts.Op;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What happens to a lease after it is handed out: ack (in batches, one script call per partition and chunk, pipelined),
 * nack, extend, and the expiry of leases past their deadline. One script each ({@code ack.lua}, {@code nack.lua},
 * {@code extend.lua}, {@code expire.lua}); the lease token is checked inside the script.
 */
final class LeaseTransitions {
    private static final Logger LOG = LoggerFactory.getLogger(LeaseTransitions.class);

    private final RedisCalls calls;
    private final ReplicatedWrites writes;
    private final TopicPartitions topics;
    private final TopicSettingsStore settings;
    private final ScriptArgs scriptArgs;

    LeaseTransitions(RedisCalls calls, ReplicatedWrites writes, TopicPartitions topics, TopicSettingsStore settings,
                     ScriptArgs scriptArgs) {
        this.calls = calls;
        this.writes = writes;
        this.topics = topics;
        this.settings = settings;
        this.scriptArgs = scriptArgs;
    }

    List<StoreStatus> ack(List<LeaseRef> leases) {
        if (leases.isEmpty()) {
            return List.of();
        }
        // one script call per partition (in chunks), pipelined when there are several
        Map<Partition, List<Integer>> groups = new LinkedHashMap<>();
        for (int i = 0; i < leases.size(); i++) {
            JobRef ref = leases.get(i).job();
            groups.computeIfAbsent(topics.partition(ref.topic(), ref.id()), k -> new ArrayList<>()).add(i);
        }
        List<List<Integer>> chunks = new ArrayList<>();
        List<List<String>> keys = new ArrayList<>();
        List<List<String>> args = new ArrayList<>();
        groups.forEach((p, indexes) -> {
            // a topic without a recorded partition count has no jobs: nothing to archive, and no settings to cache
            String archive = topics.isRecorded(p.topic()) && settings.cached(p.topic()).isArchiveSucceeded()
                    ? "1" : "0";
            for (int from = 0; from < indexes.size(); from += EnqueueWriter.CHUNK) {
                List<Integer> chunk = indexes.subList(from, Math.min(indexes.size(), from + EnqueueWriter.CHUNK));
                List<String> a = new ArrayList<>(2 + 2 * chunk.size());
                a.add(archive);
                a.add(scriptArgs.historySize());
                for (int index : chunk) {
                    LeaseRef lease = leases.get(index);
                    a.add(lease.job().id());
                    a.add(lease.token().text());
                }
                chunks.add(chunk);
                keys.add(List.of(p.jobs(), p.leased(), p.finished(), p.archive(), p.stats()));
                args.add(a);
            }
        });
        List<Object> answers = writes.evalAcknowledged("ack", Op.ACK, keys, args);
        StoreStatus[] statuses = new StoreStatus[leases.size()];
        for (int c = 0; c < chunks.size(); c++) {
            List<?> codes = (List<?>) answers.get(c);
            List<Integer> chunk = chunks.get(c);
            for (int j = 0; j < chunk.size(); j++) {
                statuses[chunk.get(j)] = ScriptCodes.status((Long) codes.get(j));
            }
        }
        return Arrays.asList(statuses);
    }

    NackOutcome nack(LeaseRef lease, Failure failure) {
        JobRef ref = lease.job();
        Partition p = topics.partition(ref.topic(), ref.id());
        Object answer = writes.evalOneAcknowledged("nack", Op.NACK,
                List.of(p.jobs(), p.leased(), p.schedPush(), p.schedPull(), p.finished(), p.archive(), p.stats()),
                List.of(ref.id(), lease.token().text(), Long.toString(failure.isDead() ? -1 : failure.retryDelayMs()),
                        failure.error() == null ? "" : failure.error(),
                        failure.httpStatus() == null ? "" : failure.httpStatus().toString(),
                        scriptArgs.retentionMs(), scriptArgs.historySize(), ref.topic(), failure.held() ? "1" : "0",
                        failure.deadCause().name()));
        long code = (Long) answer;
        return new NackOutcome(ScriptCodes.status(code), code == ScriptCodes.OK_EXPIRED);
    }

    long extend(LeaseRef lease, long leaseMs) {
        if (leaseMs < 1) {
            throw new IllegalArgumentException("leaseMs must be positive");
        }
        JobRef ref = lease.job();
        Partition p = topics.partition(ref.topic(), ref.id());
        List<?> answer = (List<?>) writes.evalOneAcknowledged("extend", Op.EXTEND, List.of(p.jobs(), p.leased()),
                List.of(ref.id(), lease.token().text(), Long.toString(leaseMs)));
        StoreException.check(ScriptCodes.status((Long) answer.get(0)), ref, "extended");
        return Long.parseLong((String) answer.get(1));
    }

    ReclaimedLeases expireLeases(String topic, int max) {
        int taken = 0;
        int expired = 0;
        int died = 0;
        for (Partition p : topics.partitions(topic)) {
            if (taken >= max) {
                break;
            }
            int wanted = max - taken;
            List<?> answer = (List<?>) calls.call("expire leases", () -> calls.scripts().eval(Op.EXPIRE,
                    List.of(p.jobs(), p.leased(), p.schedPush(), p.schedPull(), p.finished(), p.archive(), p.stats(),
                            p.quarantine()),
                    List.of(Integer.toString(wanted), scriptArgs.retentionMs(), scriptArgs.historySize(), topic,
                            Integer.toString(JobStore.EXPIRED_LAST_ATTEMPT_RETRIES))));
            logQuarantined(p, answer.subList(3, answer.size()), "expire");
            taken += ((Long) answer.get(0)).intValue();
            expired += ((Long) answer.get(1)).intValue();
            died += ((Long) answer.get(2)).intValue();
        }
        return new ReclaimedLeases(taken, expired, died);
    }

    /** The safety sweep for expired due jobs ({@code expire_overdue.lua}), partition by partition, up to {@code max}. */
    int expireOverdue(String topic, io.delayq.core.Delivery lane, int max, long expiresAfterMs) {
        int expired = 0;
        for (Partition p : topics.partitions(topic)) {
            Long answer = (Long) calls.call("expire overdue jobs", () -> calls.scripts().eval(Op.EXPIRE_OVERDUE,
                    List.of(p.jobs(), p.scheduled(lane), p.finished(), p.archive(), p.stats()),
                    List.of(Integer.toString(max), Long.toString(Math.max(0, expiresAfterMs)),
                            scriptArgs.retentionMs())));
            expired += answer.intValue();
        }
        return expired;
    }

    /** Logs what a script moved to the quarantine: {@code pairs} is id, reason, id, reason, … */
    static void logQuarantined(Partition p, List<?> pairs, String script) {
        for (int i = 0; i + 1 < pairs.size(); i += 2) {
            LOG.error("Job {}/{} has a record the {} script cannot parse ({}); it was moved, raw, to {} for an"
                    + " operator to repair, and costs the other jobs nothing", p.topic(), pairs.get(i), script,
                    pairs.get(i + 1), p.quarantine());
        }
    }
}
