package io.delayq.redis;

import io.delayq.core.Delivery;

/**
 * Every Redis key and channel name of the store, in one place (the table is in storage-redis/README.md). All keys
 * of one topic partition share the hash tag {@code {<topic>#<p>}}, so every script touches one Redis Cluster slot.
 */
final class RedisKeys {
    /** SET of every topic that has had a job or settings. */
    static final String TOPICS = "dq:topics";
    /** HASH topic → {@link io.delayq.core.TopicSettings} JSON. */
    static final String SETTINGS = "dq:settings";
    /** HASH topic → its partition count, recorded the first time the topic is used (jobs stay where they were put). */
    static final String PARTITIONS = "dq:partitions";
    /** Channel: "topic\nlane\ndueAt" when a lane's earliest run time moved earlier. */
    static final String WAKE = "dq:wake";
    /** Channel: a broadcast job as JSON. */
    static final String BROADCAST = "dq:broadcast";

    private RedisKeys() {
    }

    /**
     * HASH of one topic's counts in one minute ({@code JobStore#addHistory}): fields {@code e} enqueued,
     * {@code d} delivered, {@code f} failed, {@code x} dead, {@code l0}… lateness buckets. The hash tag is the topic
     * alone, so that all minutes of a topic live on one cluster node and a history read is one pipeline to it.
     */
    static String topicMinute(String topic, long minute) {
        return "dq:{" + topic + "}:minute:" + minute;
    }

    /** The keys of one topic partition, built once and reused on the hot path. */
    record Partition(String topic, int index, String jobs, String schedPush, String schedPull, String leased,
                     String finished, String archive, String stats, String quarantine) {

        static Partition of(String topic, int index) {
            String p = "dq:{" + topic + "#" + index + "}:";
            return new Partition(topic, index, p + "jobs", p + "scheduled:push", p + "scheduled:pull", p + "leased",
                    p + "finished", p + "archive", p + "stats", p + "quarantine");
        }

        String scheduled(Delivery lane) {
            return lane == Delivery.PUSH ? schedPush : schedPull;
        }

        /** Names the partition in outbox entry ids: {@code topic#p}. */
        String label() {
            return topic + "#" + index;
        }
    }
}
