package io.delayq.migrations;

import java.time.Instant;

/**
 * A migration recorded in {@code schema_migrations}.
 *
 * @param version     its version
 * @param description what it did
 * @param appliedAt   when it was recorded
 */
public record AppliedMigration(int version, String description, Instant appliedAt) {
}
