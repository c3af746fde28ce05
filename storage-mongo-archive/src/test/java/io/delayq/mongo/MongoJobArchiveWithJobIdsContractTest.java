package io.delayq.mongo;

import io.delayq.core.archive.JobArchive;

import java.time.Duration;

/**
 * The archive contract again with the directory of archived job ids kept, as the factory keeps it for the embedded
 * server ({@link MongoJobArchive#keepJobIdDirectory()}): find answers from it for ids it does not list, and must still
 * find every life, purge and expiry the contract describes, also across the contract's two instances.
 */
class MongoJobArchiveWithJobIdsContractTest extends MongoJobArchiveContractTest {
    @Override
    protected JobArchive newArchiveWithRetention(Duration completedRetention, Duration tombstoneRetention) {
        MongoJobArchive archive = (MongoJobArchive) super.newArchiveWithRetention(completedRetention, tombstoneRetention);
        archive.keepJobIdDirectory();
        return archive;
    }
}
