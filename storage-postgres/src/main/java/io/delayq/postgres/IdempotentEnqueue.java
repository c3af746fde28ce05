package io.delayq.postgres;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.delayq.core.EnqueueResult;
import io.delayq.core.Job;
import io.delayq.core.JobRef;
import io.delayq.core.JobRules;
import io.delayq.core.JobState;
import io.delayq.core.NewJob;
import io.delayq.core.StoreException;
import io.delayq.core.StoreStatus;
import io.delayq.postgres.Rows.Created;
import io.delayq.postgres.Rows.Stored;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * An enqueue of a batch, idempotent per id: new ids are written ({@link BatchTransitions#enqueue}, by COPY or
 * {@code enqueue.sql}), ids that exist are read back and answered as a repeat (same fingerprint) or a conflict.
 */
final class IdempotentEnqueue {
    /**
     * Jobs per enqueue statement (or COPY transaction, {@link CopyEnqueue}): a whole API batch (at most 1,000) is one,
     * so one commit and one WAL flush; larger lists are split to bound its size (payloads up to 64 KiB each) and its
     * lock set.
     */
    static final int CHUNK = 1_000;

    private final BatchTransitions batches;
    private final JobQueries queries;
    private final KnownTopics topics;
    private final ObjectMapper mapper;

    IdempotentEnqueue(BatchTransitions batches, JobQueries queries, KnownTopics topics, ObjectMapper mapper) {
        this.batches = batches;
        this.queries = queries;
        this.topics = topics;
        this.mapper = mapper;
    }

    /** As {@link io.delayq.core.JobStore#enqueue(List)}. */
    List<EnqueueResult> enqueue(List<NewJob> jobs) {
        if (jobs.isEmpty()) {
            return List.of();
        }
        // The first occurrence of each id is written; a repeat in the same batch is answered from it, as a repeat of
        // a stored job would be.
        Map<JobRef, Integer> firsts = new LinkedHashMap<>();
        String[] fingerprints = new String[jobs.size()]; // a SHA-256 each: computed once
        String checkedTopic = null; // a batch is mostly of one topic: its pattern is matched once, not once per job
        for (int i = 0; i < jobs.size(); i++) {
            NewJob job = jobs.get(i);
            if (!job.topic().equals(checkedTopic)) {
                checkedTopic = JobRules.checkTopic(job.topic());
            }
            JobRules.checkId(job.id());
            firsts.putIfAbsent(job.ref(), i);
            fingerprints[i] = job.fingerprint();
        }
        topics.register(jobs);
        List<JobRef> refs = new ArrayList<>(firsts.keySet());
        refs.sort(PostgresCalls.LOCK_ORDER);
        Map<JobRef, Job> stored = new HashMap<>();
        Map<JobRef, String> storedFingerprints = new HashMap<>();
        Set<JobRef> created = new HashSet<>();
        List<JobRef> pending = refs;
        for (int round = 0; !pending.isEmpty(); round++) {
            if (round == 3) {
                throw new StoreException(StoreStatus.UNAVAILABLE, "PostgreSQL did not enqueue: " + pending.size()
                        + " job id(s) were neither new nor found three times in a row (finished jobs reaped meanwhile?)");
            }
            for (int from = 0; from < pending.size(); from += CHUNK) {
                List<JobRef> chunk = pending.subList(from, Math.min(pending.size(), from + CHUNK));
                for (Created c : insert(chunk, firsts, jobs, fingerprints)) {
                    JobRef ref = new JobRef(c.topic(), c.id());
                    int first = firsts.get(ref);
                    created.add(ref);
                    stored.put(ref, createdJob(jobs.get(first), c.runAt(), c.createdAt()));
                    storedFingerprints.put(ref, fingerprints[first]);
                }
            }
            List<JobRef> existing = pending.stream().filter(r -> !created.contains(r)).toList();
            if (!existing.isEmpty()) {
                for (Stored s : PostgresCalls.call("read existing jobs", () -> queries.findStored(
                        existing.stream().map(JobRef::topic).toArray(String[]::new),
                        existing.stream().map(JobRef::id).toArray(String[]::new)))) {
                    stored.put(s.job().ref(), s.job());
                    storedFingerprints.put(s.job().ref(), s.fingerprint());
                }
            }
            pending = existing.stream().filter(r -> !stored.containsKey(r)).toList();
        }
        List<EnqueueResult> results = new ArrayList<>(jobs.size());
        for (int i = 0; i < jobs.size(); i++) {
            NewJob job = jobs.get(i);
            JobRef ref = job.ref();
            Job current = stored.get(ref);
            boolean createdHere = created.contains(ref) && firsts.get(ref) == i;
            if (createdHere) {
                results.add(new EnqueueResult(StoreStatus.OK, true, current));
            } else if (storedFingerprints.get(ref).equals(fingerprints[i])) {
                results.add(new EnqueueResult(StoreStatus.OK, false, current));
            } else {
                results.add(new EnqueueResult(StoreStatus.CONFLICT, false, current));
            }
        }
        return results;
    }

    private List<Created> insert(List<JobRef> chunk, Map<JobRef, Integer> firsts, List<NewJob> jobs,
                                 String[] jobFingerprints) {
        List<NewJob> ordered = new ArrayList<>(chunk.size());
        List<String> fingerprints = new ArrayList<>(chunk.size());
        for (JobRef ref : chunk) {
            int index = firsts.get(ref);
            ordered.add(jobs.get(index));
            fingerprints.add(jobFingerprints[index]);
        }
        Map<String, Object[]> arrays = EnqueueBinds.of(ordered, fingerprints, mapper);
        return PostgresCalls.callDirect("enqueue", () -> batches.enqueue(arrays));
    }

    private static Job createdJob(NewJob job, long runAt, long createdAt) {
        return new Job(job.topic(), job.id(), job.payload(), runAt, JobState.SCHEDULED, 0, job.maxAttempts(),
                job.backoff(), job.callback(), job.timeoutMs(), job.broadcast(), job.delivery(), createdAt, null, null,
                List.of(), job.trace(), job.onDead(), null, job.expiresAtMs());
    }
}
