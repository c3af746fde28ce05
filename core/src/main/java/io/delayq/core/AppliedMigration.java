package io.delayq.core;

import java.time.Instant;

/**
 * A schema migration a store or archive applied, as the {@code migrate} command and start-up logs report it.
 *
 * @param version     its version
 * @param description what it did
 * @param appliedAt   when it was recorded
 */
public record AppliedMigration(int version, String description, Instant appliedAt) {
}
