package io.delayq.mongo;

import com.mongodb.client.model.Filters;
import io.delayq.core.archive.DeadLetterQuery;
import io.delayq.core.archive.TopicScope;
import org.bson.Document;
import org.bson.conversions.Bson;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.regex.Pattern;

import static io.delayq.mongo.ArchiveDocuments.DEAD_AT;
import static io.delayq.mongo.ArchiveDocuments.HTTP_STATUS;
import static io.delayq.mongo.ArchiveDocuments.JOB_ID;
import static io.delayq.mongo.ArchiveDocuments.PAYLOAD_DOC;
import static io.delayq.mongo.ArchiveDocuments.REPLAY_COUNT;
import static io.delayq.mongo.ArchiveDocuments.SIGNATURE_HOST;
import static io.delayq.mongo.ArchiveDocuments.SIGNATURE_ID;
import static io.delayq.mongo.ArchiveDocuments.TOPIC;

/**
 * A {@link DeadLetterQuery}'s filters as a MongoDB filter over live dead letters (its limit and cursor aside): the one
 * translation that listings, counts, groups, purges and bulk replays share, so they always select the same letters.
 * Each filter is an equality or range on a field that an index of {@link DeadLetterIndexes} leads with; the query's
 * {@link DeadLetterQuery#scope() scope} is ranges of V1's {@code topic_deadAt_id} ({@link #scope}).
 */
final class DeadLetterFilters {
    /** A JSON number, as RFC 8259 spells one: a filter value that reads as one also matches that number. */
    private static final Pattern JSON_NUMBER = Pattern.compile("-?(0|[1-9]\\d*)(\\.\\d+)?([eE][+-]?\\d+)?");
    private static final String REGEX_SPECIALS = "\\^$.|?*+()[]{}";

    private DeadLetterFilters() {
    }

    /** The query's filters, over dead letters that have not been purged. */
    static Bson of(DeadLetterQuery query) {
        List<Bson> filters = new ArrayList<>();
        filters.add(ArchiveDocuments.live());
        if (query.topic() != null) {
            filters.add(Filters.eq(TOPIC, query.topic()));
        }
        TopicScope scope = query.scopeCondition();
        if (scope != null) {
            filters.add(scope(scope));
        }
        if (query.fromMs() != null) {
            filters.add(Filters.gte(DEAD_AT, new Date(query.fromMs())));
        }
        if (query.toMs() != null) {
            filters.add(Filters.lt(DEAD_AT, new Date(query.toMs())));
        }
        if (query.replayed() != null) {
            filters.add(query.replayed() ? Filters.gt(REPLAY_COUNT, 0) : Filters.eq(REPLAY_COUNT, 0));
        }
        if (query.host() != null) {
            filters.add(Filters.eq(SIGNATURE_HOST, query.host()));
        }
        if (query.httpStatus() != null) {
            filters.add(Filters.eq(HTTP_STATUS, query.httpStatus()));
        }
        if (query.idPrefix() != null) {
            // anchored, with no pattern character unescaped: MongoDB reads it as a range of the jobId index
            filters.add(Filters.regex(JOB_ID, "^" + literal(query.idPrefix())));
        }
        if (query.payloadField() != null) {
            filters.add(payload(query.payloadField(), query.payloadValue()));
        }
        if (query.group() != null) {
            filters.add(Filters.eq(SIGNATURE_ID, query.group()));
        }
        if (query.cause() != null) {
            // the job's own field; a letter archived before causes existed has none and counts as ATTEMPTS_EXHAUSTED
            String field = ArchiveDocuments.JOB + ".cause";
            filters.add(query.cause() == io.delayq.core.DeadCause.ATTEMPTS_EXHAUSTED
                    ? Filters.or(Filters.eq(field, query.cause().name()), Filters.exists(field, false))
                    : Filters.eq(field, query.cause().name()));
        }
        return Filters.and(filters);
    }

    /**
     * The letters of the scope's topics: {@code topic $in} its exact names, or ({@code $or}) in the range of one of its
     * prefixes, {@code (prefix, successor(prefix))} — strings compare by their UTF-8 bytes, code point order, so that
     * range holds exactly the topics that start with the prefix and go on, whatever characters it has (no pattern to
     * escape). Each branch is a range of {@code topic_deadAt_id}'s first field, which MongoDB plans as one index scan
     * per branch (an OR stage); the branches are disjoint unless the scope's patterns overlap, which a tenant's never
     * do. An empty scope (a topic filter outside it) is {@code topic $in []}: nothing, without reading a letter.
     */
    static Bson scope(TopicScope scope) {
        List<Bson> branches = new ArrayList<>();
        if (!scope.topics().isEmpty() || scope.prefixes().isEmpty()) {
            branches.add(Filters.in(TOPIC, scope.topics()));
        }
        for (String prefix : scope.prefixes()) {
            String end = TopicScope.successor(prefix);
            // one condition document, so that both bounds are the branch's index range
            Document range = new Document("$gt", prefix);
            if (end != null) {
                range.append("$lt", end);
            } else { // only the last code point there is: no string of this length comes after it
                range.append("$regex", "^" + literal(prefix));
            }
            branches.add(new Document(TOPIC, range));
        }
        return branches.size() == 1 ? branches.get(0) : Filters.or(branches);
    }

    /**
     * The field of the payload's queryable copy ({@link PayloadDocument}) equals the value as a string or, when the
     * value reads as a JSON number or boolean, as that number or boolean.
     */
    private static Bson payload(String field, String value) {
        String path = PAYLOAD_DOC + "." + field;
        List<Bson> forms = new ArrayList<>();
        forms.add(Filters.eq(path, value));
        if (JSON_NUMBER.matcher(value).matches()) {
            forms.add(Filters.eq(path, PayloadDocument.number(new BigDecimal(value))));
        } else if (value.equals("true") || value.equals("false")) {
            forms.add(Filters.eq(path, Boolean.parseBoolean(value)));
        }
        return forms.size() == 1 ? forms.get(0) : Filters.or(forms);
    }

    /** The text as a regular expression that matches exactly it. */
    static String literal(String text) {
        StringBuilder regex = new StringBuilder(text.length() + 8);
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (REGEX_SPECIALS.indexOf(c) >= 0) {
                regex.append('\\');
            }
            regex.append(c);
        }
        return regex.toString();
    }
}
