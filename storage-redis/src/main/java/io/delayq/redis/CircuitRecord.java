package io.delayq.redis;

import io.delayq.core.breaker.CircuitState;
import io.delayq.core.breaker.OriginCircuit;

/**
 * Reads a callback origin's circuit as the {@code breaker_*} scripts store it in {@link RedisKeys#CIRCUITS}:
 * {@code <state>|<consecutive failures>|<openedAt>|<closedAt>|<nextProbeAt>|<probe interval ms>|<held jobs>}, numbers
 * in base 36, state {@code C} or {@code O}, openedAt / closedAt empty when unset (see {@code lua/lib/breaker.lua},
 * which writes it). Fields after the seventh are ignored, so that a later version may append some.
 */
final class CircuitRecord {
    private CircuitRecord() {
    }

    /**
     * The circuit stored as {@code record}; {@link OriginCircuit#closed} when there is none.
     *
     * @throws IllegalArgumentException when the text is not a circuit record
     */
    static OriginCircuit decode(String origin, String record) {
        if (record == null || record.isEmpty()) {
            return OriginCircuit.closed(origin);
        }
        String[] f = record.split("\\|", -1);
        if (f.length < 7 || !(f[0].equals("C") || f[0].equals("O"))) {
            throw new IllegalArgumentException("not a circuit record: '" + record + "'");
        }
        try {
            return new OriginCircuit(origin, f[0].equals("O") ? CircuitState.OPEN : CircuitState.CLOSED,
                    Integer.parseInt(f[1], 36), optional(f[2]), optional(f[3]), Long.parseLong(f[4], 36),
                    Long.parseLong(f[5], 36), Long.parseLong(f[6], 36));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a circuit record: '" + record + "' (" + e.getMessage() + ")", e);
        }
    }

    private static Long optional(String base36) {
        return base36.isEmpty() ? null : Long.parseLong(base36, 36);
    }
}
