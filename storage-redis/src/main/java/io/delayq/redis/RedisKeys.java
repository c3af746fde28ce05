package io.delayq.redis;

import io.delayq.core.Delivery;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * Every Redis key and channel name of the store, in one place (the table is in storage-redis/README.md). All keys
 * of one topic partition share the hash tag {@code {<topic>#<p>}}, so every script touches one Redis Cluster slot.
 */
final class RedisKeys {
    /** Redis Cluster's hash slots. */
    static final int SLOTS = 16_384;
    /** SET of every topic that has had a job or settings. */
    static final String TOPICS = "dq:topics";
    /**
     * ZSET of the members of {@link #TOPICS}, every score 0: the same names in byte order, so that a page of them and
     * the topics starting with a prefix (a tenant's {@code billing.*}) are a range read ({@code ZRANGE … BYLEX})
     * costing the page, however many topics the store holds ({@link TopicNameIndex}). Changed only with the SET, in the
     * same script, so hash tag {@code {dq:topics}}: the SET's slot.
     */
    static final String TOPICS_BY_NAME = "dq:topics-by-name:{" + TOPICS + "}";
    /** HASH topic → {@link io.delayq.core.TopicSettings} JSON. */
    static final String SETTINGS = "dq:settings";
    /**
     * HASH topic → when it was first seen without jobs and settings, ms ({@link TopicForgetting}). Hash tag
     * {@code {dq:topics}}: the slot of {@link #TOPICS}, so forgetting touches no other master than the registry's.
     */
    static final String TOPICS_IDLE = "dq:topics-idle:{" + TOPICS + "}";
    /**
     * HASH topic → when it was forgotten, ms: the registry's repair does not bring it back ({@link TopicForgetting}).
     * In the slot of {@link #TOPICS}, so a registration's pipeline reaches no further master for it.
     */
    static final String TOPICS_FORGOTTEN = "dq:topics-forgotten:{" + TOPICS + "}";
    /**
     * HASH topic → its partition count and layout, recorded the first time the topic is used (jobs stay where they
     * were put): {@code "<P>"} for the first layout ({@link Partition#of}), {@code "<P> spread"} for the spread one
     * ({@link Partition#spread}).
     */
    static final String PARTITIONS = "dq:partitions";
    /**
     * HASH callback origin → its circuit (the record of its circuit breaker) ({@code lua/lib/breaker.lua}), shared by every instance. One
     * key, so one cluster slot: each breaker script touches only it, and {@code circuits()} is one HGETALL.
     */
    static final String CIRCUITS = "dq:circuits";

    /**
     * ZSET of the jobs held for one callback origin ({@link JobRefs#member} → when first held, ms): its size is the
     * circuit's held count (issue 26, finding 7). Hash tag {@code {dq:circuits}}, so the same cluster slot as
     * {@link #CIRCUITS} (whose whole name is hashed): {@code breaker_held} writes both in one script.
     */
    static String held(String origin) {
        return HELD_PREFIX + origin;
    }

    static final String HELD_PREFIX = "dq:held:{" + CIRCUITS + "}:";

    /**
     * HASH of the jobs held for one callback origin by topic (topic → count; field {@code ""}: since when it counts,
     * ms), kept by {@code breaker_held} from the changes to {@link #held} and deleted with it: what
     * {@code CircuitBreakers.heldByTopic} reads without going through the set. Same hash tag, so the same slot.
     */
    static String heldByTopic(String origin) {
        return HELD_BY_TOPIC_PREFIX + origin;
    }

    static final String HELD_BY_TOPIC_PREFIX = "dq:held-topics:{" + CIRCUITS + "}:";
    /** ZSET of the origins with a circuit (score 0: origin order, the paged listing); {@code lua/lib/breaker.lua}. */
    static final String CIRCUIT_ORIGINS = "dq:circuit-origins:{" + CIRCUITS + "}";
    /** ZSET origin → its circuit's last change, ms (the expiry of idle closed circuits). */
    static final String CIRCUIT_CHANGES = "dq:circuit-changes:{" + CIRCUITS + "}";
    /** ZSET of the origins whose circuit is open or has jobs held (score 0), what each instance's snapshot reads. */
    static final String CIRCUITS_NOTABLE = "dq:circuit-notable:{" + CIRCUITS + "}";
    /**
     * The tenancy ({@link RedisTenantRegistry}): four keys under the one hash tag {@code {tenancy}}, so one cluster
     * slot, so that a compare-and-set on the version and the change it guards are one script. HASH tenant name →
     * {@link io.delayq.core.tenant.Tenant} JSON.
     */
    static final String TENANTS = "dq:{tenancy}:tenants";
    /** HASH token field ({@link RedisTenantRegistry#field}) → {@link io.delayq.core.tenant.ApiToken} JSON. */
    static final String TOKENS = "dq:{tenancy}:tokens";
    /** STRING: the version every tenant and token change moves by one (absent: 0). */
    static final String TENANCY_VERSION = "dq:{tenancy}:version";
    /** HASH token field → when the token was last used (epoch ms); moves no version. */
    static final String TOKENS_USED = "dq:{tenancy}:used";
    /** Channel: "topic\nlane\ndueAt" when a lane's earliest run time moved earlier. */
    static final String WAKE = "dq:wake";
    /** Channel: a broadcast job as JSON. */
    static final String BROADCAST = "dq:broadcast";

    /**
     * SET of the topics that have a recurring schedule ({@link RedisScheduleStore}): the scheduler's due read looks at
     * these topics' due sets only. A topic leaves it when its last schedule is deleted (RedisScheduleStore#delete).
     */
    static final String SCHEDULE_TOPICS = "dq:schedule-topics";
    /**
     * ZSET of the members of {@link #SCHEDULE_TOPICS}, every score 0: what a tenant's schedule counts read by prefix
     * ({@link TopicNameIndex}, as {@link #TOPICS_BY_NAME} is to {@link #TOPICS}); in the SET's slot.
     */
    static final String SCHEDULE_TOPICS_BY_NAME = "dq:schedule-topics-by-name:{" + SCHEDULE_TOPICS + "}";

    private RedisKeys() {
    }

    /**
     * HASH schedule name → record JSON ({@code lua/schedule_put.lua}), under the hash tag of the topic's partition
     * {@code p0}, so that a fire's script can write the fire's job into that partition in the same cluster slot.
     */
    static String schedules(Partition p0) {
        return tagPrefix(p0) + "schedules";
    }

    /** ZSET schedule name → when its next fire is due (epoch ms); beside {@link #schedules}. */
    static String schedulesDue(Partition p0) {
        return tagPrefix(p0) + "schedules:due";
    }

    private static String tagPrefix(Partition p) {
        return p.jobs().substring(0, p.jobs().length() - "jobs".length());
    }

    /**
     * HASH of one topic's counts in one minute ({@code JobStore#addHistory}): fields {@code e} enqueued,
     * {@code d} delivered, {@code f} failed, {@code x} dead, {@code l0}… lateness buckets. The hash tag is the topic
     * alone, so that all minutes of a topic live on one cluster node and a history read is one pipeline to it.
     */
    static String topicMinute(String topic, long minute) {
        return "dq:{" + topic + "}:minute:" + minute;
    }

    /**
     * ZSET of the callback origins one topic's jobs were sent to (origin → last use, ms; {@code topic_origins.lua}):
     * {@code CircuitBreakers.recordOrigins}, at most {@code MAX_ORIGINS_PER_TOPIC}, expiring a day after its newest
     * use. Tagged with the topic alone, like {@link #topicMinute}: one script call per topic, and a tenant's read of
     * its topics is one pipeline spread over the nodes its topics live on (not one slot every instance writes to).
     */
    static String topicOrigins(String topic) {
        return "dq:{" + topic + "}:origins";
    }

    /**
     * STRING of one token bucket ({@link RedisRateLimiters}): {@code "<tokens> <last take, µs>"}, expiring when the
     * bucket would be full again. Each bucket has a hash tag of its own, so buckets spread over a cluster's masters.
     */
    static String bucket(String key) {
        return "dq:{rl:" + key + "}";
    }

    /** The keys of one topic partition, built once and reused on the hot path. */
    record Partition(String topic, int index, String jobs, String schedPush, String schedPull, String leased,
                     String finished, String archive, String stats, String quarantine) {

        /** Partition {@code index} under the first layout: hash tag {@code {<topic>#<p>}}, wherever that hashes. */
        static Partition of(String topic, int index) {
            return tagged(topic, index, topic + "#" + index);
        }

        /**
         * Partition {@code index} of {@code count} under the spread layout: hash tag {@code {<topic>#<p>.<k>}}, with k the
         * smallest integer that puts the tag's slot into the p-th of {@code count} equal ranges of the 16,384 slots.
         * A cluster whose masters own equal contiguous slot ranges (what {@code redis-cli --cluster create} and
         * rebalancing make) then holds ⌊P/M⌋ or ⌈P/M⌉ of a topic's P partitions on each of its M masters. Deterministic,
         * so every instance computes the same keys; ~count tries of CRC16 per partition, once per topic and instance.
         */
        static Partition spread(String topic, int index, int count) {
            long from = (long) index * SLOTS / count;
            long to = Math.max(from + 1, (long) (index + 1) * SLOTS / count);
            for (long k = 0; ; k++) {
                String tag = topic + "#" + index + "." + k;
                int slot = JedisClusterCRC16.getSlot("{" + tag + "}");
                if (slot >= from && slot < to) {
                    return tagged(topic, index, tag);
                }
            }
        }

        private static Partition tagged(String topic, int index, String tag) {
            String p = "dq:{" + tag + "}:";
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
