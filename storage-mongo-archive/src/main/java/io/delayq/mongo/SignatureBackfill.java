package io.delayq.mongo;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.BulkWriteOptions;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Sorts;
import com.mongodb.client.model.UpdateOneModel;
import com.mongodb.client.model.Updates;
import com.mongodb.client.model.WriteModel;
import org.bson.Document;
import org.bson.conversions.Bson;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;

import static io.delayq.mongo.ArchiveDocuments.ID;
import static io.delayq.mongo.ArchiveDocuments.SIGNATURE_ID;

/**
 * Gives the dead letters written before failure signatures existed (or by an older instance during a rolling
 * upgrade) the fields the dashboard queries: their signature, last HTTP status and parsed payload, computed in Java by
 * the same {@link ArchiveDocuments#derivedFields} a write uses (the signature is {@code FailureSignature.of(job)}, which
 * no query language reproduces). Reads {@value #BATCH} letters at a time through the {@code signature_deadAt_id} index
 * ({@code signature.id: null}), so it is quick when there is nothing to do, as on every start after the first.
 */
final class SignatureBackfill {
    static final int BATCH = 500;
    private static final Logger LOG = LoggerFactory.getLogger(SignatureBackfill.class);

    private SignatureBackfill() {
    }

    /** @return how many letters were given their fields */
    static long run(MongoCollection<Document> deadLetters, Runnable afterWrite) {
        Bson unsigned = Filters.and(ArchiveDocuments.live(), Filters.eq(SIGNATURE_ID, null));
        long signed = 0;
        String after = null; // letters that cannot be read stay unsigned; go past them
        while (true) {
            Bson page = after == null ? unsigned : Filters.and(unsigned, Filters.gt(ID, after));
            List<Document> batch = deadLetters.find(page).sort(Sorts.ascending(ID)).limit(BATCH).into(new ArrayList<>());
            if (batch.isEmpty()) {
                break;
            }
            List<WriteModel<Document>> updates = new ArrayList<>();
            for (Document letter : batch) {
                after = letter.getString(ID);
                try {
                    Document fields = ArchiveDocuments.derivedFields(ArchiveDocuments.job(letter));
                    List<Bson> sets = new ArrayList<>();
                    fields.forEach((k, v) -> sets.add(Updates.set(k, v)));
                    // not on a letter purged or rewritten meanwhile
                    updates.add(new UpdateOneModel<>(Filters.and(Filters.eq(ID, after), unsigned), Updates.combine(sets)));
                } catch (RuntimeException e) {
                    LOG.warn("Dead letter {} cannot be read to compute its failure signature; it stays out of failure"
                            + " groups: {}", after, e.toString());
                }
            }
            if (!updates.isEmpty()) {
                signed += deadLetters.bulkWrite(updates, new BulkWriteOptions().ordered(false)).getModifiedCount();
                afterWrite.run();
            }
        }
        if (signed > 0) {
            LOG.info("Gave {} dead letters written before failure signatures their signature", signed);
        }
        return signed;
    }
}
