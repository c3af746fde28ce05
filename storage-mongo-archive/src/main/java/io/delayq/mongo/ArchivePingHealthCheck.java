package io.delayq.mongo;

import com.codahale.metrics.health.HealthCheck;
import com.mongodb.client.MongoDatabase;
import org.bson.Document;

/** The health check {@code archive}: healthy while the archive answers a ping. */
final class ArchivePingHealthCheck extends HealthCheck {
    private final MongoDatabase database;

    ArchivePingHealthCheck(MongoDatabase database) {
        this.database = database;
    }

    @Override
    protected Result check() {
        try {
            database.runCommand(new Document("ping", 1));
            return Result.healthy();
        } catch (RuntimeException e) {
            return Result.unhealthy("the archive (MongoDB) does not answer; dead letters wait in the store's"
                    + " outbox until it does: " + e.getMessage());
        }
    }
}
