package io.delayq.postgres;

import io.delayq.core.Delivery;
import io.delayq.core.Failure;
import io.delayq.core.JobRef;
import io.delayq.core.JobStore;
import io.delayq.core.Lease;
import io.delayq.core.LeaseRef;
import io.delayq.core.NackOutcome;
import io.delayq.core.ReclaimedLeases;
import io.delayq.core.ReserveResult;
import io.delayq.core.StoreException;
import io.delayq.core.StoreStatus;
import io.delayq.postgres.Rows.Extended;
import io.delayq.postgres.Rows.Reserved;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A lease's life: reserve (concurrent callers of a lane sharing one statement, {@link ReserveCoalescer}), ack, nack,
 * extend, and the expiry of leases whose deadline passed. Reserve and ack carry batches on plain JDBC
 * ({@link BatchTransitions}); the others are one JDBI statement each ({@link JobTransitions}).
 */
final class LeaseTransitions {
    private static final Logger LOG = LoggerFactory.getLogger(LeaseTransitions.class);
    private static final int MAX_RESERVE = 10_000;

    private final BatchTransitions batches;
    private final JobTransitions transitions;
    private final PostgresStoreOptions options;
    private final ReserveCoalescer reserves = new ReserveCoalescer(MAX_RESERVE, this::reserveNow);

    LeaseTransitions(BatchTransitions batches, JobTransitions transitions, PostgresStoreOptions options) {
        this.batches = batches;
        this.transitions = transitions;
        this.options = options;
    }

    ReserveResult reserve(String topic, Delivery lane, int max, long defaultLeaseMs, long expiresAfterMs) {
        if (max < 1) {
            throw new IllegalArgumentException("max must be at least 1");
        }
        return reserves.reserve(topic, lane, Math.min(MAX_RESERVE, max), defaultLeaseMs, Math.max(0, expiresAfterMs));
    }

    int expireOverdue(String topic, Delivery lane, int max, long expiresAfterMs) {
        return PostgresCalls.call("expire overdue jobs", () -> transitions.expireOverdue(topic, lane == Delivery.PUSH,
                max, Math.max(0, expiresAfterMs)));
    }

    /** One reserve statement (for one caller, or for several that {@link ReserveCoalescer} lets share it). */
    private ReserveResult reserveNow(String topic, Delivery lane, int max, long defaultLeaseMs, long expiresAfterMs) {
        List<Reserved> rows = PostgresCalls.callDirect("reserve", () ->
                batches.reserve(topic, lane == Delivery.PUSH, max, defaultLeaseMs, expiresAfterMs));
        List<Lease> leases = new ArrayList<>(rows.size());
        for (Reserved r : rows) {
            if (r.job() != null) {
                leases.add(new Lease(r.job(), r.token(), r.deadline()));
            } else if (r.id() != null) {
                failUnreadable(new LeaseRef(new JobRef(topic, r.id()), r.token()), r.unreadable());
            }
        }
        Reserved any = rows.get(0);
        return new ReserveResult(leases, any.next() == null ? -1 : any.next(), any.now(), any.expired());
    }

    /**
     * A leased row this code cannot decode costs the other leases nothing: it is made DEAD at once (its attempt cannot
     * be made), so that it reaches the outbox, and from there the archiver's quarantine, instead of coming back at
     * every lease expiry. Should the database fail now, the lease is left to expire and a later reserve tries again.
     */
    private void failUnreadable(LeaseRef lease, String reason) {
        LOG.error("Job {} cannot be read by this version of delayq ({}); it is made DEAD without an attempt, and its"
                + " dead letter goes to the outbox", lease.job(), reason);
        try {
            nack(lease, Failure.dead("the stored job cannot be read by this version of delayq: " + reason, null,
                    io.delayq.core.DeadCause.UNREADABLE));
        } catch (StoreException e) {
            LOG.warn("Could not end unreadable job {} now; it comes back when its lease expires: {}", lease.job(),
                    e.getMessage());
        }
    }

    List<StoreStatus> ack(List<LeaseRef> leases) {
        StoreStatus[] statuses = new StoreStatus[leases.size()];
        // A job named twice is acked in two rounds, in the caller's order, as sequential calls would be: one
        // statement cannot update a row twice.
        List<Integer> remaining = new ArrayList<>();
        for (int i = 0; i < leases.size(); i++) {
            remaining.add(i);
        }
        while (!remaining.isEmpty()) {
            Set<JobRef> inRound = new HashSet<>();
            List<Integer> round = new ArrayList<>();
            List<Integer> later = new ArrayList<>();
            for (int i : remaining) {
                (inRound.add(leases.get(i).job()) ? round : later).add(i);
            }
            round.sort(Comparator.comparing(i -> leases.get(i).job(), PostgresCalls.LOCK_ORDER));
            String[] topics = round.stream().map(i -> leases.get(i).job().topic()).toArray(String[]::new);
            String[] ids = round.stream().map(i -> leases.get(i).job().id()).toArray(String[]::new);
            byte[] tokens = BatchTransitions.tokens(round.stream().map(i -> leases.get(i).token()).toList());
            List<String> answers = PostgresCalls.callDirect("ack",
                    () -> batches.ack(topics, ids, tokens, options.historySize()));
            for (int k = 0; k < round.size(); k++) {
                statuses[round.get(k)] = StoreStatus.valueOf(answers.get(k));
            }
            remaining = later;
        }
        return List.of(statuses);
    }

    NackOutcome nack(LeaseRef lease, Failure failure) {
        JobRef ref = lease.job();
        return PostgresCalls.call("nack", () -> transitions.nack(ref.topic(), ref.id(), lease.token().toUuid(),
                failure.isDead() ? -1 : failure.retryDelayMs(), failure.error(), failure.httpStatus(),
                failure.held(), options.historySize(), failure.deadCause().name()));
    }

    long extend(LeaseRef lease, long leaseMs) {
        if (leaseMs < 1) {
            throw new IllegalArgumentException("leaseMs must be positive");
        }
        JobRef ref = lease.job();
        Extended answer = PostgresCalls.call("extend",
                () -> transitions.extend(ref.topic(), ref.id(), lease.token().toUuid(), leaseMs));
        StoreException.check(StoreStatus.valueOf(answer.status()), ref, "extended");
        return answer.deadlineMs();
    }

    ReclaimedLeases expire(String topic, int max) {
        return PostgresCalls.call("expire leases", () -> transitions.expire(topic, max, options.historySize(),
                JobStore.EXPIRED_LAST_ATTEMPT_RETRIES));
    }
}
