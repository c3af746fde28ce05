package io.delayq.redis;

import io.delayq.core.EnqueueResult;
import io.delayq.core.Job;
import io.delayq.core.JobRules;
import io.delayq.core.NewJob;
import io.delayq.core.StoreStatus;
import io.delayq.redis.RedisKeys.Partition;
import io.delayq.redis.Scripts.Op;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes new jobs: grouped by partition, at most {@value #CHUNK} per {@code enqueue.lua} call, every call of a batch
 * in one pipeline (and one WAIT per node with {@code minReplicas}).
 */
final class EnqueueWriter {
    /** Jobs per enqueue script call; bigger batches are split so one call never blocks Redis for long. */
    static final int CHUNK = 500;

    private final ReplicatedWrites writes;
    private final TopicPartitions topics;
    private final RecordCodec codec;

    EnqueueWriter(ReplicatedWrites writes, TopicPartitions topics, RecordCodec codec) {
        this.writes = writes;
        this.topics = topics;
        this.codec = codec;
    }

    List<EnqueueResult> enqueue(List<NewJob> jobs) {
        if (jobs.isEmpty()) {
            return List.of();
        }
        // group by partition, keeping each job's position for the answer
        Map<Partition, List<Integer>> groups = new LinkedHashMap<>();
        for (int i = 0; i < jobs.size(); i++) {
            NewJob job = jobs.get(i);
            JobRules.checkTopic(job.topic());
            JobRules.checkId(job.id());
            groups.computeIfAbsent(TopicPartitions.pick(topics.partitionsForWrite(job.topic()), job.id()),
                    k -> new ArrayList<>()).add(i);
        }
        List<Call> calls = new ArrayList<>();
        groups.forEach((p, indexes) -> {
            for (int from = 0; from < indexes.size(); from += CHUNK) {
                calls.add(new Call(p, indexes.subList(from, Math.min(indexes.size(), from + CHUNK)), jobs));
            }
        });
        EnqueueResult[] results = new EnqueueResult[jobs.size()];
        List<Object> answers = writes.evalAcknowledged("enqueue", Op.ENQUEUE, calls.stream().map(c -> c.keys).toList(),
                calls.stream().map(c -> c.args).toList());
        for (int c = 0; c < calls.size(); c++) {
            Call call = calls.get(c);
            List<?> answer = (List<?>) answers.get(c);
            for (int j = 0; j < call.indexes.size(); j++) {
                int index = call.indexes.get(j);
                results[index] = result(jobs.get(index), answer, j);
            }
        }
        return Arrays.asList(results);
    }

    /** One script call: a partition's keys, and its jobs' arguments (id, head start, when, head end, payload each). */
    private final class Call {
        final List<Integer> indexes;
        final List<String> keys;
        final List<String> args;

        Call(Partition p, List<Integer> indexes, List<NewJob> jobs) {
            this.indexes = indexes;
            this.keys = List.of(p.jobs(), p.schedPush(), p.schedPull());
            this.args = new ArrayList<>(1 + indexes.size() * 5);
            args.add(p.topic());
            for (int index : indexes) {
                NewJob job = jobs.get(index);
                args.add(job.id());
                args.add(RecordCodec.newJobHeadStart(job));
                args.add(job.delayMs() != null ? "d" + job.delayMs() : "a" + job.runAtMs());
                args.add(codec.newJobHeadEnd(job));
                args.add(job.payload());
            }
        }
    }

    /** Reads the enqueue script's answer for job {@code j} of a call: {now, code, runAt or record, …}. */
    private EnqueueResult result(NewJob job, List<?> answer, int j) {
        long code = (Long) answer.get(1 + 2 * j);
        if (code == ScriptCodes.OK) {
            long runAt = (Long) answer.get(2 + 2 * j);
            return new EnqueueResult(StoreStatus.OK, true, codec.created(job, runAt, (Long) answer.get(0)));
        }
        Job existing = codec.decode(job.topic(), job.id(), (String) answer.get(2 + 2 * j));
        return new EnqueueResult(ScriptCodes.status(code), false, existing);
    }
}
