package io.delayq.core.schedule;

import io.delayq.core.JobRules;

import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32;

/**
 * The ids of the jobs schedules enqueue: they start with {@value #PREFIX}, which {@link JobRules#checkClientId} refuses
 * for every id a producer gives, so no producer can plant (or cancel in advance, by enqueueing it first) a fire's job.
 * The id of a cron fire is a function of the schedule and the fire time ({@code :<name>:<fire epoch ms>}), so that it
 * says what it is; exactly-once does not rest on it (a finished job may be gone from the store) but on the
 * compare-and-set of {@link ScheduleStore#advance}.
 */
public final class FireIds {
    /**
     * Characters an id leaves free for a store's suffix ({@link ScheduleStore#advance}: a '.' and up to five digits).
     */
    public static final int STORE_SUFFIX_CHARS = 6;
    /** The longest id made here. */
    public static final int MAX_CHARS = JobRules.MAX_NAME_CHARS - STORE_SUFFIX_CHARS;

    /** The first character of every fire's id, and of no producer's. */
    public static final String PREFIX = ":";

    private FireIds() {
    }

    /** Whether {@code id} is in the schedules' namespace. */
    public static boolean isFireId(String id) {
        return id != null && id.startsWith(PREFIX);
    }

    /** The id of the fire of schedule {@code name} at {@code fireAtMs}. */
    public static String of(String name, long fireAtMs) {
        return fit(name, Long.toString(fireAtMs));
    }

    /** The id of a run-now of schedule {@code name} asked for at {@code atMs}. */
    public static String runNow(String name, long atMs) {
        return fit(name, "run-" + atMs);
    }

    /**
     * {@code :<name>:<suffix>}, within {@link #MAX_CHARS}: a long name is cut and given a CRC-32 of itself,
     * so that two long names sharing a beginning still get different ids.
     */
    private static String fit(String name, String suffix) {
        String id = PREFIX + name + ":" + suffix;
        if (id.length() <= MAX_CHARS) {
            return id;
        }
        CRC32 crc = new CRC32();
        crc.update(name.getBytes(StandardCharsets.UTF_8));
        String hash = String.format("%08x", crc.getValue());
        int keep = MAX_CHARS - PREFIX.length() - 1 - hash.length() - 1 - suffix.length();
        return PREFIX + name.substring(0, keep) + "-" + hash + ":" + suffix;
    }
}
