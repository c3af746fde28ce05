package io.delayq.redis;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delayq.core.JobRules;
import io.delayq.core.NewJob;
import io.delayq.core.StoreException;
import io.delayq.core.StoreStatus;
import io.delayq.core.schedule.Fire;
import io.delayq.core.schedule.FireIds;
import io.delayq.core.schedule.ScheduleRecord;
import io.delayq.core.schedule.ScheduleStore;
import io.delayq.redis.RedisKeys.Partition;
import io.delayq.redis.Scripts.Op;
import io.dropwizard.jackson.Jackson;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Core's {@link ScheduleStore} on Redis. A topic's schedules are one HASH and their due times one ZSET
 * ({@link RedisKeys#schedules}, {@link RedisKeys#schedulesDue}) under the hash tag of the topic's partition 0; each
 * write is one script ({@code schedule_put.lua}, {@code schedule_fire.lua}, {@code schedule_delete.lua}), an
 * acknowledged write ({@code minReplicas}). A fire's job goes to partition 0 too, so that the compare-and-set of the
 * cursor and the job are one script in one cluster slot: with more than one partition, its id gets the first suffix
 * {@code .<k>} that hashes there ({@link TopicPartitions#pick}; about P tries of CRC-32, no round trip).
 *
 * <p>Reads are plain commands. A topic's list reads its whole HASH (schedules are made by people, a few per topic);
 * the due read looks at the due ZSET of each topic in {@link RedisKeys#SCHEDULE_TOPICS}, which holds the topics that
 * have a schedule (a topic leaves it with its last schedule's delete); its index by name ({@link TopicNameIndex},
 * written with it in one script) serves the counts of a tenant's topics by prefix.
 */
final class RedisScheduleStore implements ScheduleStore {
    private static final Logger LOG = LoggerFactory.getLogger(RedisScheduleStore.class);
    private static final ObjectMapper JSON = Jackson.newObjectMapper();

    private final RedisCalls calls;
    private final ReplicatedWrites writes;
    private final TopicPartitions topics;
    private final RecordCodec codec;
    private final TopicNameIndex withSchedules;

    RedisScheduleStore(RedisCalls calls, ReplicatedWrites writes, TopicPartitions topics, RecordCodec codec,
                       TopicNameIndex withSchedules) {
        this.calls = calls;
        this.writes = writes;
        this.topics = topics;
        this.codec = codec;
        this.withSchedules = withSchedules;
    }

    @Override
    public ScheduleRecord put(String topic, String name, String definition, Long dueAtMs) {
        check(topic, name);
        Partition p0 = topics.partitionsForWrite(topic)[0];
        registerTopic(topic); // before: a put that fails half-way leaves at most a topic without schedules registered
        Object answer = writes.evalOneAcknowledged("put a schedule", Op.SCHEDULE_PUT,
                List.of(RedisKeys.schedules(p0), RedisKeys.schedulesDue(p0)),
                List.of(name, definition, dueAtMs == null ? "" : Long.toString(dueAtMs)));
        // and after: a concurrent delete of the topic's last schedule may have taken it out in between (see delete)
        registerTopic(topic);
        return decode(topic, name, (String) answer);
    }

    @Override
    public Optional<ScheduleRecord> get(String topic, String name) {
        check(topic, name);
        Partition p0 = topics.partitions(topic)[0];
        String json = calls.call("read a schedule", () -> calls.client().hget(RedisKeys.schedules(p0), name));
        return Optional.ofNullable(json).map(j -> decode(topic, name, j));
    }

    @Override
    public List<ScheduleRecord> list(String topic, String afterName, int limit) {
        JobRules.checkTopic(topic);
        Partition p0 = topics.partitions(topic)[0];
        Map<String, String> all = calls.call("list schedules", () -> calls.client().hgetAll(RedisKeys.schedules(p0)));
        List<ScheduleRecord> page = new ArrayList<>();
        for (var e : new TreeMap<>(all).entrySet()) {
            if (afterName != null && e.getKey().compareTo(afterName) <= 0) {
                continue;
            }
            if (page.size() == limit) {
                break;
            }
            page.add(decode(topic, e.getKey(), e.getValue()));
        }
        return page;
    }

    /**
     * A range of the index of {@link RedisKeys#SCHEDULE_TOPICS} by name ({@link TopicNameIndex}), then an HLEN of each
     * topic of it in one pipeline. A topic listed without schedules (its last one deleted a moment ago) is left out and
     * the next names read, so that a page short of {@code limit} is the last.
     */
    @Override
    public Map<String, Long> counts(String prefix, String after, int limit) {
        Map<String, Long> out = new LinkedHashMap<>();
        String position = after;
        while (out.size() < limit) {
            int wanted = limit - out.size();
            List<String> names = withSchedules.startingWith(prefix, position, wanted);
            if (names.isEmpty()) {
                break;
            }
            List<Partition> p0s = names.stream().map(t -> topics.partitions(t)[0]).toList();
            List<Long> counts = calls.perPartition("count schedules", p0s,
                    (pipeline, p0) -> pipeline.hlen(RedisKeys.schedules(p0)));
            for (int i = 0; i < names.size(); i++) {
                if (counts.get(i) > 0) {
                    out.put(names.get(i), counts.get(i));
                }
            }
            if (names.size() < wanted) {
                break; // the index holds no more
            }
            position = names.get(names.size() - 1);
        }
        return out;
    }

    @Override
    public boolean delete(String topic, String name) {
        check(topic, name);
        Partition p0 = topics.partitions(topic)[0];
        List<?> answer = (List<?>) writes.evalOneAcknowledged("delete a schedule", Op.SCHEDULE_DELETE,
                List.of(RedisKeys.schedules(p0), RedisKeys.schedulesDue(p0)), List.of(name));
        boolean existed = (Long) answer.get(0) == 1L;
        if (existed && (Long) answer.get(1) == 0L) {
            forgetTopicWithoutSchedules(topic, p0);
        }
        return existed;
    }

    /**
     * Takes a topic whose last schedule was just deleted out of {@link RedisKeys#SCHEDULE_TOPICS} and its index by name
     * ({@code topics_remove.lua}), so that the due read stops asking about it. The SET is in a cluster slot of its own,
     * so this cannot be one script with the delete; a put racing it is covered by the order of the steps: a put writes
     * its schedule before its (second) SADD, and this reads the schedules again after its SREM and puts the topic back
     * when one arrived meanwhile, so whichever of the two comes last leaves the topic registered when it has a
     * schedule. Should this fail, the delete stands and the topic is put back (at worst it stays registered: one empty
     * read per due check, as before).
     */
    private void forgetTopicWithoutSchedules(String topic, Partition p0) {
        try {
            withSchedules.remove(topic);
            long left = calls.call("count a topic's schedules", () -> calls.client().hlen(RedisKeys.schedules(p0)));
            if (left > 0) {
                registerTopic(topic);
            }
        } catch (StoreException e) {
            LOG.warn("could not take topic {} out of {} after its last schedule was deleted: {}", topic,
                    RedisKeys.SCHEDULE_TOPICS, e.getMessage());
            try {
                registerTopic(topic);
            } catch (StoreException again) {
                LOG.warn("topic {} may be left out of {}: a schedule put into it now registers it again", topic,
                        RedisKeys.SCHEDULE_TOPICS);
            }
        }
    }

    private void registerTopic(String topic) {
        withSchedules.add(List.of(topic), null);
    }

    @Override
    public List<ScheduleRecord> due(long nowMs, int limit) {
        List<ScheduleRecord> due = new ArrayList<>();
        for (String topic : calls.call("read the topics with schedules",
                () -> calls.client().smembers(RedisKeys.SCHEDULE_TOPICS))) {
            Partition p0 = topics.partitions(topic)[0];
            List<String> names = calls.call("read due schedules", () -> calls.client()
                    .zrangeByScore(RedisKeys.schedulesDue(p0), Double.NEGATIVE_INFINITY, nowMs, 0, limit));
            if (names.isEmpty()) {
                continue;
            }
            List<String> records = calls.call("read due schedules",
                    () -> calls.client().hmget(RedisKeys.schedules(p0), names.toArray(String[]::new)));
            for (int i = 0; i < names.size(); i++) {
                if (records.get(i) != null) {
                    due.add(decode(topic, names.get(i), records.get(i)));
                }
            }
        }
        due.sort(Comparator.comparing(ScheduleRecord::dueAtMs));
        return due.size() > limit ? new ArrayList<>(due.subList(0, limit)) : due;
    }

    @Override
    public AdvanceResult advance(String topic, String name, long expectedCursorMs, long newCursorMs, Long dueAtMs,
                                 Fire fire, NewJob job) {
        return fire(topic, name, "cas", expectedCursorMs, newCursorMs, dueAtMs, fire, job);
    }

    @Override
    public AdvanceResult runNow(String topic, String name, Fire fire, NewJob job) {
        return fire(topic, name, "run", 0, 0, null, fire, job);
    }

    private AdvanceResult fire(String topic, String name, String mode, long expected, long cursor, Long dueAtMs,
                               Fire fire, NewJob job) {
        check(topic, name);
        Partition[] ps = topics.partitionsForWrite(topic);
        Partition p0 = ps[0];
        NewJob placed = job == null ? null : inPartitionZero(ps, job);
        List<String> args = new ArrayList<>(List.of(topic, name, mode, Long.toString(expected), Long.toString(cursor),
                dueAtMs == null ? "" : Long.toString(dueAtMs),
                fire == null ? "" : json(new Fire(fire.fireAtMs(), placed == null ? null : placed.id(), fire.kind(),
                        fire.missed(), fire.recordedMs()))));
        if (placed != null) {
            if (!placed.topic().equals(topic)) {
                throw new IllegalArgumentException("a schedule's job goes to its own topic " + topic);
            }
            args.add(placed.id());
            args.add(RecordCodec.newJobHeadStart(placed));
            args.add(placed.delayMs() != null ? "d" + placed.delayMs() : "a" + placed.runAtMs());
            args.add(codec.newJobHeadEnd(placed));
            args.add(placed.payload());
        }
        List<?> answer = (List<?>) writes.evalOneAcknowledged("fire a schedule", Op.SCHEDULE_FIRE,
                List.of(RedisKeys.schedules(p0), RedisKeys.schedulesDue(p0), p0.jobs(), p0.schedPush(),
                        p0.schedPull()), args);
        long code = (Long) answer.get(0);
        if (code == -1) {
            return new AdvanceResult(Advance.NOT_FOUND, null);
        }
        if (code == -2) {
            return new AdvanceResult(Advance.CONFLICT, null);
        }
        String id = (String) answer.get(1);
        return new AdvanceResult(Advance.APPLIED, id.isEmpty() ? null : id);
    }

    /** The job with the first id suffix {@code .<k>} that puts it in partition 0 (none when the topic has one). */
    private static NewJob inPartitionZero(Partition[] ps, NewJob job) {
        JobRules.checkId(job.id());
        if (ps.length == 1 || TopicPartitions.pick(ps, job.id()) == ps[0]) {
            return job;
        }
        for (int k = 0; ; k++) {
            String id = job.id() + "." + k;
            if (TopicPartitions.pick(ps, id) == ps[0]) {
                return new NewJob(job.topic(), JobRules.checkId(id), job.payload(), job.delayMs(), job.runAtMs(),
                        job.maxAttempts(), job.backoff(), job.callback(), job.timeoutMs(), job.broadcast(),
                        job.delivery(), job.trace(), job.onDead());
            }
        }
    }

    private static void check(String topic, String name) {
        JobRules.checkTopic(topic);
        if (name == null || name.isEmpty() || name.length() > JobRules.MAX_NAME_CHARS) {
            throw new IllegalArgumentException("a schedule's name is 1 to " + JobRules.MAX_NAME_CHARS + " characters");
        }
    }

    private static String json(Fire fire) {
        try {
            return JSON.writeValueAsString(fire);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a fire is plain JSON", e);
        }
    }

    /** Reads a record of schedule_put.lua's shape; an empty {@code f} is {@code {}} (Lua has one kind of table). */
    static ScheduleRecord decode(String topic, String name, String json) {
        try {
            JsonNode rec = JSON.readTree(json);
            List<Fire> fires = new ArrayList<>();
            JsonNode f = rec.path("f");
            if (f.isArray()) {
                for (JsonNode one : f) {
                    fires.add(JSON.readValue(one.asText(), Fire.class));
                }
            }
            JsonNode due = rec.path("u");
            return new ScheduleRecord(topic, name, rec.path("d").asText(), Long.parseLong(rec.path("c").asText()),
                    due.isMissingNode() || due.isNull() ? null : Long.parseLong(due.asText()),
                    Long.parseLong(rec.path("ca").asText()), Long.parseLong(rec.path("ua").asText()), fires);
        } catch (JsonProcessingException | RuntimeException e) {
            throw new StoreException(StoreStatus.UNAVAILABLE, "schedule '" + name + "' of topic " + topic
                    + " in Redis cannot be read: " + e.getMessage());
        }
    }
}
