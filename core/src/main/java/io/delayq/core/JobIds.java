package io.delayq.core;

import java.security.SecureRandom;
import java.util.UUID;

/** Generates job ids for producers that give none: UUIDv7 (RFC 9562), so ids sort by creation time. */
public final class JobIds {
    private static final SecureRandom RANDOM = new SecureRandom();

    private JobIds() {
    }

    public static String newId() {
        long millis = System.currentTimeMillis();
        long randA = RANDOM.nextInt(1 << 12);
        long msb = (millis << 16) | (0x7L << 12) | randA;
        long lsb = (RANDOM.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
        return new UUID(msb, lsb).toString();
    }
}
