package io.delayq.mongo;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import io.delayq.core.Attempt;
import io.delayq.core.Job;
import io.delayq.core.archive.DeadLetter;
import io.delayq.core.archive.DeadNotice;
import io.delayq.core.archive.FailureSignature;
import io.dropwizard.jackson.Jackson;
import org.bson.Document;
import org.bson.conversions.Bson;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;

/**
 * The archive's document layout (see the module README), in one place.
 *
 * <p>The job goes in as its JSON form (the same Jackson mapping the rest of delayq uses), so a new {@link Job}
 * field is archived without touching this class; the payload stays the producer's exact JSON text, because
 * re-encoding it through BSON could change numbers or {@code $}-keys. Fields queried by the archive ({@code topic},
 * {@code jobId}, {@code deadAt}, {@code replayCount}, and for the dashboard {@code signature}, {@code httpStatus} and
 * {@code payloadDoc}, a parsed copy of the payload) sit at the top level, times as BSON dates so a TTL index can use
 * them. A dead letter's notice is the archive's own, like its replays: written once with the letter, then changed only
 * by {@code recordNotice}.
 */
final class ArchiveDocuments {
    static final String ID = "_id";
    static final String TOPIC = "topic";
    static final String JOB_ID = "jobId";
    static final String JOB = "job";
    static final String DEAD_AT = "deadAt";
    static final String FINISHED_AT = "finishedAt";
    static final String EXPIRE_AT = "expireAt";
    static final String STATE = "state";
    static final String REPLAY_COUNT = "replayCount";
    static final String REPLAYS = "replays";
    /** Set on a purged dead letter's tombstone, which keeps nothing else but its {@code _id} and {@code expireAt}. */
    static final String PURGED_AT = "purgedAt";
    /** The letter's {@link FailureSignature}: {@code {id, kind, message, host}}, decided when it is written. */
    static final String SIGNATURE = "signature";
    static final String SIGNATURE_ID = SIGNATURE + ".id";
    static final String SIGNATURE_HOST = SIGNATURE + ".host";
    /** The last attempt's HTTP status, or null when it got no HTTP answer. */
    static final String HTTP_STATUS = "httpStatus";
    /** The payload parsed, for payload filters ({@link PayloadDocument}); null when the payload is no JSON object. */
    static final String PAYLOAD_DOC = "payloadDoc";
    /**
     * The letter's {@link DeadNotice}, present only when its job has an {@code onDead} target:
     * {@code {state, attempts, nextAttemptAt, deliveredAt?, lastError?, lastStatus?}}, times as BSON dates.
     */
    static final String NOTICE = "notice";
    static final String NOTICE_STATE = NOTICE + ".state";
    static final String NOTICE_ATTEMPTS = NOTICE + ".attempts";
    static final String NOTICE_NEXT_ATTEMPT_AT = NOTICE + ".nextAttemptAt";

    private static final ObjectMapper MAPPER = Jackson.newObjectMapper();

    private ArchiveDocuments() {
    }

    static long finishedAt(Job job, long fallback) {
        return job.finishedAt() != null ? job.finishedAt() : fallback;
    }

    /**
     * The fields of a dead letter that the outbox decides, the queried ones derived from the job among them (its
     * failure signature, last HTTP status, parsed payload); replays are kept by {@code $setOnInsert}.
     */
    static Document deadLetterFields(Job job, long now) {
        Document fields = new Document(TOPIC, job.topic())
                .append(JOB_ID, job.id())
                .append(DEAD_AT, new Date(finishedAt(job, now)))
                .append(STATE, job.state().name())
                .append(JOB, jobToDocument(job));
        fields.putAll(derivedFields(job));
        return fields;
    }

    /** What the dashboard's filters and groups query, computed from the job: written with it, or filled in later. */
    static Document derivedFields(Job job) {
        FailureSignature signature = FailureSignature.of(job);
        return new Document(SIGNATURE, new Document("id", signature.id())
                        .append("kind", signature.kind())
                        .append("message", signature.message())
                        .append("host", signature.host()))
                .append(HTTP_STATUS, lastHttpStatus(job))
                .append(PAYLOAD_DOC, PayloadDocument.of(job.payload(), MAPPER));
    }

    private static Integer lastHttpStatus(Job job) {
        List<Attempt> history = job.history();
        return history == null || history.isEmpty() ? null : history.get(history.size() - 1).httpStatus();
    }

    static FailureSignature signature(Document letter) {
        Document s = letter.get(SIGNATURE, Document.class);
        return new FailureSignature(s.getString("id"), s.getString("kind"), s.getString("message"),
                s.getString("host"));
    }

    static Document completed(Job job, long now, Duration retention) {
        long finishedAt = finishedAt(job, now);
        return new Document(ID, DeadLetter.keyOf(job))
                .append(TOPIC, job.topic())
                .append(JOB_ID, job.id())
                .append(FINISHED_AT, new Date(finishedAt))
                .append(EXPIRE_AT, new Date(finishedAt + retention.toMillis()))
                .append(STATE, job.state().name())
                .append(JOB, jobToDocument(job));
    }

    static Document replay(DeadLetter.Replay replay) {
        Document d = new Document("number", replay.number())
                .append("at", new Date(replay.at()))
                .append("newJobId", replay.newJobId());
        if (replay.requestKey() != null) {
            d.append("requestKey", replay.requestKey());
        }
        return d;
    }

    static DeadLetter deadLetter(Document d) {
        List<DeadLetter.Replay> replays = new ArrayList<>();
        for (Document r : d.getList(REPLAYS, Document.class, List.of())) {
            replays.add(new DeadLetter.Replay(r.getInteger("number", replays.size() + 1), r.getDate("at").getTime(),
                    r.getString("newJobId"), r.getString("requestKey")));
        }
        Document notice = d.get(NOTICE, Document.class);
        return new DeadLetter(d.getString(ID), job(d), d.getDate(DEAD_AT).getTime(),
                d.getInteger(REPLAY_COUNT, replays.size()), replays, notice == null ? null : notice(notice));
    }

    /** A notice as stored: its absent parts (no delivery yet, no error, no HTTP answer) left out. */
    static Document notice(DeadNotice notice) {
        Document d = new Document("state", notice.state().name())
                .append("attempts", notice.attempts())
                .append("nextAttemptAt", new Date(notice.nextAttemptAt()));
        if (notice.deliveredAt() != null) {
            d.append("deliveredAt", new Date(notice.deliveredAt()));
        }
        if (notice.lastError() != null) {
            d.append("lastError", notice.lastError());
        }
        if (notice.lastStatus() != null) {
            d.append("lastStatus", notice.lastStatus());
        }
        return d;
    }

    static DeadNotice notice(Document d) {
        Date deliveredAt = d.getDate("deliveredAt");
        return new DeadNotice(DeadNotice.State.valueOf(d.getString("state")), d.getInteger("attempts", 0),
                d.getDate("nextAttemptAt").getTime(), deliveredAt == null ? null : deliveredAt.getTime(),
                d.getString("lastError"), d.getInteger("lastStatus"));
    }

    static Job job(Document d) {
        try {
            return MAPPER.readValue(d.get(JOB, Document.class).toJson(), Job.class);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("archived document " + d.get(ID) + " does not hold a readable job: "
                    + e.getOriginalMessage(), e);
        }
    }

    private static Document jobToDocument(Job job) {
        try {
            return Document.parse(MAPPER.writeValueAsString(job));
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("job " + job.ref() + " cannot be written as JSON", e);
        }
    }

    /**
     * Turns dead letters into tombstones: the key ({@code _id}), when it was purged and when the tombstone expires,
     * and nothing of the job (a purge removes the payload). Every field {@link #deadLetterFields} and the replay
     * fields set is dropped (the notice too), so that no query of live dead letters, nor of due notices, can match a
     * tombstone.
     */
    static Bson tombstone(long purgedAt, Duration retention) {
        return Updates.combine(
                Updates.set(PURGED_AT, new Date(purgedAt)),
                Updates.set(EXPIRE_AT, new Date(purgedAt + retention.toMillis())),
                Updates.unset(TOPIC), Updates.unset(JOB_ID), Updates.unset(DEAD_AT), Updates.unset(STATE),
                Updates.unset(JOB), Updates.unset(REPLAY_COUNT), Updates.unset(REPLAYS),
                Updates.unset(SIGNATURE), Updates.unset(HTTP_STATUS), Updates.unset(PAYLOAD_DOC),
                Updates.unset(NOTICE));
    }

    /** Dead letters that have not been purged. */
    static Bson live() {
        return Filters.exists(PURGED_AT, false);
    }
}
