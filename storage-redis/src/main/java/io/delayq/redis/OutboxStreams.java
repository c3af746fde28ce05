package io.delayq.redis;

import io.delayq.core.JobRef;
import io.delayq.core.OutboxEntry;
import io.delayq.redis.RedisKeys.Partition;
import io.delayq.redis.Scripts.Op;
import redis.clients.jedis.Response;
import redis.clients.jedis.StreamEntryID;
import redis.clients.jedis.resps.StreamEntry;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * The archiver's side of the store: the outbox (each partition's archive stream) read oldest first across partitions,
 * its entries deleted once archived or moved to the partition's quarantine stream. An entry id is
 * {@code topic#p@streamId}, so that it names its partition.
 */
final class OutboxStreams {
    private final RedisCalls calls;
    private final ReplicatedWrites writes;
    private final TopicPartitions topics;
    private final RecordCodec codec;
    /** Where the next outbox read starts taking turns among the partitions, so that every partition gets its turn. */
    private final AtomicInteger turn = new AtomicInteger();

    OutboxStreams(RedisCalls calls, ReplicatedWrites writes, TopicPartitions topics, RecordCodec codec) {
        this.calls = calls;
        this.writes = writes;
        this.topics = topics;
        this.codec = codec;
    }

    /**
     * O(max), not O(partitions × max): one pipelined XLEN per partition (an integer each), then XRANGE of only the
     * entries this read returns, each partition's share of {@code max} sized by {@link OutboxShares}. Entries come
     * oldest first within each partition and are sorted by their stream ids (the ms they were written) across them.
     */
    List<OutboxEntry> read(int max) {
        if (max < 1) {
            return List.of();
        }
        List<Partition> ps = topics.allPartitions();
        if (ps.isEmpty()) {
            return List.of();
        }
        List<Long> sizes = calls.perPartition("read the outbox size", ps, (pipe, p) -> pipe.xlen(p.archive()));
        int[] shares = OutboxShares.of(sizes.stream().mapToLong(Long::longValue).toArray(), max, turn.getAndAdd(max));
        Map<Partition, Integer> shareOf = new LinkedHashMap<>();
        for (int i = 0; i < ps.size(); i++) {
            if (shares[i] > 0) {
                shareOf.put(ps.get(i), shares[i]);
            }
        }
        if (shareOf.isEmpty()) {
            return List.of();
        }
        List<Partition> chosen = new ArrayList<>(shareOf.keySet());
        List<List<StreamEntry>> reads = calls.perPartition("read outbox", chosen,
                (pipe, p) -> pipe.xrange(p.archive(), "-", "+", shareOf.get(p)));
        List<StreamEntry> order = new ArrayList<>();
        List<OutboxEntry> entries = new ArrayList<>();
        for (int i = 0; i < chosen.size(); i++) {
            for (StreamEntry e : reads.get(i)) {
                order.add(e);
                entries.add(entry(chosen.get(i), e));
            }
        }
        List<Integer> idx = new ArrayList<>(entries.size());
        for (int i = 0; i < entries.size(); i++) {
            idx.add(i);
        }
        idx.sort(Comparator.comparing(i -> order.get(i).getID()));
        List<OutboxEntry> sorted = new ArrayList<>(entries.size());
        for (int i : idx) {
            sorted.add(entries.get(i));
        }
        return sorted;
    }

    /** One outbox entry, or the entry marked unreadable when this code cannot decode it. */
    private OutboxEntry entry(Partition p, StreamEntry e) {
        String entryId = p.label() + "@" + e.getID();
        String id = e.getFields().get("i");
        String record = e.getFields().get("r");
        try {
            if (id == null || record == null) {
                throw new IllegalStateException("outbox entry " + entryId + " lacks its job id (i) or record (r)");
            }
            return new OutboxEntry(entryId, codec.decode(p.topic(), id, record));
        } catch (RuntimeException ex) {
            return OutboxEntry.unreadable(entryId, new JobRef(p.topic(), id == null ? "" : id), record,
                    String.valueOf(ex.getMessage()));
        }
    }

    void delete(List<OutboxEntry> entries) {
        Map<Partition, List<StreamEntryID>> byStream = new LinkedHashMap<>();
        for (OutboxEntry entry : entries) {
            byStream.computeIfAbsent(partitionOf(entry), k -> new ArrayList<>()).add(streamId(entry));
        }
        if (byStream.isEmpty()) {
            return;
        }
        // one pipeline (a round trip per node) and, with minReplicas, one WAIT per node
        List<Partition> ps = new ArrayList<>(byStream.keySet());
        calls.call("delete outbox entries", () -> writes.pipelineWithWaits("delete outbox entries",
                ps.stream().map(Partition::archive).toList(),
                (pipe, i) -> pipe.xdel(ps.get(i).archive(), byStream.get(ps.get(i)).toArray(StreamEntryID[]::new))))
                .forEach(Response::get);
    }

    /** Moves entries from their partition's archive stream to its quarantine stream ({@code quarantine.lua}). */
    void quarantine(List<OutboxEntry> entries) {
        Map<Partition, List<String>> byPartition = new LinkedHashMap<>();
        for (OutboxEntry entry : entries) {
            String reason = entry.isReadable() ? "quarantined by request" : entry.unreadable().reason();
            List<String> args = byPartition.computeIfAbsent(partitionOf(entry), k -> new ArrayList<>());
            args.add(streamId(entry).toString());
            args.add(reason);
        }
        if (byPartition.isEmpty()) {
            return;
        }
        List<Partition> ps = new ArrayList<>(byPartition.keySet());
        writes.evalAcknowledged("quarantine outbox entries", Op.QUARANTINE,
                ps.stream().map(p -> List.of(p.archive(), p.quarantine())).toList(),
                ps.stream().map(byPartition::get).toList());
    }

    long outboxSize() {
        return sumOfLengths("read the outbox size", Partition::archive);
    }

    long quarantineSize() {
        return sumOfLengths("read the quarantine size", Partition::quarantine);
    }

    private long sumOfLengths(String operation, Function<Partition, String> stream) {
        long size = 0;
        for (long n : calls.perPartition(operation, topics.allPartitions(), (pipe, p) -> pipe.xlen(stream.apply(p)))) {
            size += n;
        }
        return size;
    }

    /** The partition named by an outbox entry id ({@code topic#p@streamId}), under the topic's recorded layout. */
    private Partition partitionOf(OutboxEntry entry) {
        String entryId = entry.entryId();
        int at = entryId.lastIndexOf('@');
        int hash = entryId.lastIndexOf('#', at);
        if (at < 0 || hash < 0) {
            throw new IllegalArgumentException("'" + entryId + "' is not an outbox entry id of this store");
        }
        Partition[] ps = topics.partitions(entryId.substring(0, hash));
        int index;
        try {
            index = Integer.parseInt(entryId.substring(hash + 1, at));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + entryId + "' is not an outbox entry id of this store", e);
        }
        if (index < 0 || index >= ps.length) {
            throw new IllegalArgumentException("'" + entryId + "' names partition " + index + " of a topic with "
                    + ps.length + " partition(s)");
        }
        return ps[index];
    }

    private static StreamEntryID streamId(OutboxEntry entry) {
        String entryId = entry.entryId();
        return new StreamEntryID(entryId.substring(entryId.lastIndexOf('@') + 1));
    }
}
