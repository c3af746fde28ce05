package io.delayq.mongo;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delayq.core.Job;
import io.delayq.core.archive.DeadLetter;
import io.dropwizard.jackson.Jackson;
import org.bson.Document;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Date;
import java.util.List;

/**
 * The archive's document layout (see the module README), in one place.
 *
 * <p>The job goes in as its JSON form (the same Jackson mapping the rest of delayq uses), so a new {@link Job}
 * field is archived without touching this class; the payload stays the producer's exact JSON text, because
 * re-encoding it through BSON could change numbers or {@code $}-keys. Fields queried by the archive ({@code topic},
 * {@code jobId}, {@code deadAt}, {@code replayCount}) sit at the top level, times as BSON dates so a TTL index can
 * use them.
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

    private static final ObjectMapper MAPPER = Jackson.newObjectMapper();

    private ArchiveDocuments() {
    }

    static long finishedAt(Job job, long fallback) {
        return job.finishedAt() != null ? job.finishedAt() : fallback;
    }

    /** The fields of a dead letter that the outbox decides; replays are kept by {@code $setOnInsert}. */
    static Document deadLetterFields(Job job, long now) {
        return new Document(TOPIC, job.topic())
                .append(JOB_ID, job.id())
                .append(DEAD_AT, new Date(finishedAt(job, now)))
                .append(STATE, job.state().name())
                .append(JOB, jobToDocument(job));
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
        return new DeadLetter(d.getString(ID), job(d), d.getDate(DEAD_AT).getTime(),
                d.getInteger(REPLAY_COUNT, replays.size()), replays);
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

    /** An opaque cursor naming the last item of a page: its deadAt and key. */
    static String cursor(long deadAt, String key) {
        return Base64.getUrlEncoder().withoutPadding()
                .encodeToString((deadAt + "|" + key).getBytes(StandardCharsets.UTF_8));
    }

    record Position(long deadAt, String key) {
    }

    static Position position(String cursor) {
        try {
            String text = new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.UTF_8);
            int bar = text.indexOf('|');
            return new Position(Long.parseLong(text.substring(0, bar)), text.substring(bar + 1));
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("cursor '" + cursor + "' is not one this service handed out;"
                    + " pass the nextCursor of the previous page unchanged, or none for the first page");
        }
    }
}
