package io.delayq.mongo;

import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.IndexOptions;
import com.mongodb.client.model.Indexes;
import io.delayq.core.archive.DeadNotice;
import io.delayq.mongo.migration.V1ArchiveCollections;
import org.bson.Document;

import static io.delayq.mongo.ArchiveDocuments.DEAD_AT;
import static io.delayq.mongo.ArchiveDocuments.HTTP_STATUS;
import static io.delayq.mongo.ArchiveDocuments.ID;
import static io.delayq.mongo.ArchiveDocuments.JOB_ID;
import static io.delayq.mongo.ArchiveDocuments.NOTICE_NEXT_ATTEMPT_AT;
import static io.delayq.mongo.ArchiveDocuments.NOTICE_STATE;
import static io.delayq.mongo.ArchiveDocuments.PAYLOAD_DOC;
import static io.delayq.mongo.ArchiveDocuments.SIGNATURE_HOST;
import static io.delayq.mongo.ArchiveDocuments.SIGNATURE_ID;

/**
 * The indexes behind the dashboard's dead-letter filters and failure groups, beside those of the migrations
 * (V1: topic, time, job). Each filter's equality field leads an index followed by the listing's order
 * ({@code deadAt}↓, {@code _id}↓), so a filtered page reads only its own entries and a count or a group reads only
 * the matching ones:
 * <ul>
 *   <li>{@code signature_deadAt_id}: the group filter, each group's example, and the start-up search for letters
 *       written without a signature ({@code signature.id: null});</li>
 *   <li>{@code host_deadAt_id}, {@code httpStatus_deadAt_id}: the host and status filters;</li>
 *   <li>{@code jobId_deadAt}: an id prefix over every topic (an anchored regex is a range of it; within a topic
 *       V1's {@code topic_jobId_deadAt} serves);</li>
 *   <li>{@code payloadDoc_wildcard}: a wildcard index over the payload's queryable copy, any path's equality.</li>
 * </ul>
 * And one for the notice sender: {@code pendingNotices_due} {@code {notice.nextAttemptAt, _id}}, partial on
 * {@code notice.state: PENDING}, so it holds only the notices still to send (a settled notice leaves it) and finding
 * the due ones costs what is pending, not what was ever noticed.
 * Created with {@code createIndex}, which does nothing when the index is there: run with the migrations (see
 * {@link MongoJobArchiveFactory#migrate(MongoDatabase)}), on every start.
 */
final class DeadLetterIndexes {
    private DeadLetterIndexes() {
    }

    static void ensure(MongoDatabase database) {
        var deadLetters = database.getCollection(V1ArchiveCollections.DEAD_LETTERS);
        deadLetters.createIndex(Indexes.compoundIndex(Indexes.ascending(SIGNATURE_ID), Indexes.descending(DEAD_AT, ID)),
                new IndexOptions().name("signature_deadAt_id"));
        deadLetters.createIndex(Indexes.compoundIndex(Indexes.ascending(SIGNATURE_HOST),
                Indexes.descending(DEAD_AT, ID)), new IndexOptions().name("host_deadAt_id"));
        deadLetters.createIndex(Indexes.compoundIndex(Indexes.ascending(HTTP_STATUS), Indexes.descending(DEAD_AT, ID)),
                new IndexOptions().name("httpStatus_deadAt_id"));
        deadLetters.createIndex(Indexes.compoundIndex(Indexes.ascending(JOB_ID), Indexes.descending(DEAD_AT)),
                new IndexOptions().name("jobId_deadAt"));
        deadLetters.createIndex(new Document(PAYLOAD_DOC + ".$**", 1), new IndexOptions().name("payloadDoc_wildcard"));
        deadLetters.createIndex(Indexes.ascending(NOTICE_NEXT_ATTEMPT_AT, ID), new IndexOptions()
                .name("pendingNotices_due").partialFilterExpression(Filters.eq(NOTICE_STATE, DeadNotice.State.PENDING.name())));
    }
}
