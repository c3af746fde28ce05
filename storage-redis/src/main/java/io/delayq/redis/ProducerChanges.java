package io.delayq.redis;

import io.delayq.core.Job;
import io.delayq.core.JobRef;
import io.delayq.core.StoreException;
import io.delayq.redis.RedisKeys.Partition;
import io.delayq.redis.Scripts.Op;

import java.util.List;

/** What a producer may change of a job it enqueued: cancel it ({@code cancel.lua}) or move it ({@code reschedule.lua}). */
final class ProducerChanges {
    private final ReplicatedWrites writes;
    private final TopicPartitions topics;
    private final RecordCodec codec;
    private final ScriptArgs scriptArgs;

    ProducerChanges(ReplicatedWrites writes, TopicPartitions topics, RecordCodec codec, ScriptArgs scriptArgs) {
        this.writes = writes;
        this.topics = topics;
        this.codec = codec;
        this.scriptArgs = scriptArgs;
    }

    Job cancel(JobRef ref) {
        Partition p = topics.partition(ref.topic(), ref.id());
        List<?> answer = (List<?>) writes.evalOneAcknowledged("cancel", Op.CANCEL,
                List.of(p.jobs(), p.schedPush(), p.schedPull(), p.leased(), p.finished()),
                List.of(ref.id(), scriptArgs.retentionMs()));
        StoreException.check(ScriptCodes.status((Long) answer.get(0)), ref, "cancelled");
        return codec.decode(ref.topic(), ref.id(), (String) answer.get(1));
    }

    Job reschedule(JobRef ref, Long delayMs, Long runAtMs) {
        if ((delayMs == null) == (runAtMs == null)) {
            throw new IllegalArgumentException("exactly one of delayMs and runAtMs must be set");
        }
        Partition p = topics.partition(ref.topic(), ref.id());
        List<?> answer = (List<?>) writes.evalOneAcknowledged("reschedule", Op.RESCHEDULE,
                List.of(p.jobs(), p.schedPush(), p.schedPull(), p.leased()),
                List.of(ref.id(), delayMs == null ? "" : delayMs.toString(), runAtMs == null ? "" : runAtMs.toString(),
                        ref.topic(), scriptArgs.historySize()));
        StoreException.check(ScriptCodes.status((Long) answer.get(0)), ref, "rescheduled");
        return codec.decode(ref.topic(), ref.id(), (String) answer.get(1));
    }
}
