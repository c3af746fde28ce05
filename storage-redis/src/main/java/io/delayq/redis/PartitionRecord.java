package io.delayq.redis;

import io.delayq.core.StoreException;
import io.delayq.core.StoreStatus;

/**
 * A topic's entry in {@code dq:partitions}: its partition count and the layout of its keys. {@code "8"} is the first
 * layout (hash tags {@code {<topic>#<p>}}, wherever they hash), kept for every topic recorded that way so that its jobs
 * stay where they are; {@code "8 spread"} is the spread layout ({@link RedisKeys.Partition#spread}), which this version
 * records for every new topic of more than one partition. A topic of one partition is recorded as {@code "1"}: one
 * partition has nothing to spread, and its keys stay readable by versions that know only the first layout.
 *
 * @param count  the topic's partitions
 * @param spread whether its hash tags were chosen to spread the partitions over the slot space
 */
record PartitionRecord(int count, boolean spread) {
    private static final String SPREAD = " spread";

    /** What this version records for a topic written for the first time. */
    static PartitionRecord forNewTopic(int count) {
        return new PartitionRecord(count, count > 1);
    }

    String encode() {
        return spread ? count + SPREAD : Integer.toString(count);
    }

    static PartitionRecord parse(String topic, String value) {
        boolean spread = value.endsWith(SPREAD);
        String number = spread ? value.substring(0, value.length() - SPREAD.length()) : value;
        try {
            int count = Integer.parseInt(number);
            if (count >= 1) {
                return new PartitionRecord(count, spread);
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        // written by a newer version (another layout) or by hand: reading the topic with a guess would miss its jobs
        throw new StoreException(StoreStatus.UNAVAILABLE, "topic " + topic + " has partition record '" + value
                + "' in " + RedisKeys.PARTITIONS + ", which this version of delayq cannot read (expected '<count>' or"
                + " '<count>" + SPREAD + "'); run the version that wrote it");
    }
}
