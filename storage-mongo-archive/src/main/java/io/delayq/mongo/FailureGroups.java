package io.delayq.mongo;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Accumulators;
import com.mongodb.client.model.Aggregates;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Sorts;
import io.delayq.core.archive.DeadLetter;
import io.delayq.core.archive.DeadLetterQuery;
import io.delayq.core.archive.FailureGroup;
import org.bson.Document;
import org.bson.conversions.Bson;

import java.util.ArrayList;
import java.util.Date;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static io.delayq.mongo.ArchiveDocuments.DEAD_AT;
import static io.delayq.mongo.ArchiveDocuments.ID;
import static io.delayq.mongo.ArchiveDocuments.SIGNATURE_ID;

/**
 * {@link io.delayq.core.archive.JobArchive#failureGroups} on MongoDB: one aggregation over the letters the filter
 * matches, grouped on {@code signature.id} by the server ({@code $match}, {@code $group}, {@code $sort},
 * {@code $limit}), then one {@code find} of the groups' examples by {@code _id}. The newest letter of a group is the
 * {@code $max} of {@code {deadAt, key}} (documents compare field by field), the listing's own order, so no letters are
 * sorted to find it.
 */
final class FailureGroups {
    static final long HOUR_MS = 3_600_000L;
    /** Most groups one call answers: a dashboard shows a screenful. */
    static final int MAX_LIMIT = 1_000;

    private final MongoCollection<Document> deadLetters;

    FailureGroups(MongoCollection<Document> deadLetters) {
        this.deadLetters = deadLetters;
    }

    private static void checkLimit(int limit) {
        if (limit < 1 || limit > MAX_LIMIT) {
            throw new IllegalArgumentException("group limit is " + limit + "; use 1 to " + MAX_LIMIT);
        }
    }

    List<FailureGroup> of(DeadLetterQuery filter, int limit, long nowMs) {
        checkLimit(limit);
        // Letters an older version wrote without a signature wait for the next start-up's backfill (README).
        Bson match = Filters.and(DeadLetterFilters.of(filter), Filters.ne(SIGNATURE_ID, null));
        Document inLastHour = new Document("$and", List.of(
                new Document("$gte", List.of("$" + DEAD_AT, new Date(nowMs - HOUR_MS))),
                new Document("$lte", List.of("$" + DEAD_AT, new Date(nowMs)))));
        List<Bson> pipeline = List.of(
                Aggregates.match(match),
                Aggregates.group("$" + SIGNATURE_ID,
                        Accumulators.sum("count", 1),
                        Accumulators.sum("lastHour", new Document("$cond", List.of(inLastHour, 1, 0))),
                        Accumulators.min("firstDeadAt", "$" + DEAD_AT),
                        Accumulators.max("lastDeadAt", "$" + DEAD_AT),
                        Accumulators.max("newest", new Document("deadAt", "$" + DEAD_AT).append("key", "$" + ID))),
                Aggregates.sort(Sorts.orderBy(Sorts.descending("count", "lastDeadAt"), Sorts.ascending(ID))),
                Aggregates.limit(limit));
        List<Document> groups = deadLetters.aggregate(pipeline).into(new ArrayList<>());
        Map<String, Document> examples = examples(groups);
        List<FailureGroup> result = new ArrayList<>();
        for (Document g : groups) {
            Document example = examples.get(g.get("newest", Document.class).getString("key"));
            if (example == null) {
                example = newestNow(filter, g.getString(ID)); // purged since the aggregation
                if (example == null) {
                    continue;
                }
            }
            DeadLetter letter = ArchiveDocuments.deadLetter(example);
            result.add(new FailureGroup(ArchiveDocuments.signature(example), number(g, "count"),
                    number(g, "lastHour"), g.getDate("firstDeadAt").getTime(), g.getDate("lastDeadAt").getTime(),
                    letter));
        }
        return result;
    }

    private Map<String, Document> examples(List<Document> groups) {
        List<String> keys = groups.stream().map(g -> g.get("newest", Document.class).getString("key")).toList();
        Map<String, Document> byKey = new HashMap<>();
        if (!keys.isEmpty()) {
            for (Document d : deadLetters.find(Filters.and(Filters.in(ID, keys), ArchiveDocuments.live()))) {
                byKey.put(d.getString(ID), d);
            }
        }
        return byKey;
    }

    private Document newestNow(DeadLetterQuery filter, String signatureId) {
        return deadLetters.find(DeadLetterFilters.of(filter.withGroup(signatureId)))
                .sort(Sorts.descending(DEAD_AT, ID)).limit(1).first();
    }

    private static long number(Document d, String field) {
        return ((Number) d.get(field)).longValue();
    }
}
