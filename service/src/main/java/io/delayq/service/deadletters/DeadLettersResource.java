package io.delayq.service.deadletters;

import com.codahale.metrics.annotation.ExceptionMetered;
import com.codahale.metrics.annotation.Timed;
import io.delayq.core.Callback;
import io.delayq.core.JobRef;
import io.delayq.core.JobRules;
import io.delayq.core.StoreException;
import io.delayq.core.StoreStatus;
import io.delayq.core.archive.DeadLetter;
import io.delayq.core.archive.DeadLetterCursor;
import io.delayq.core.archive.DeadLetterQuery;
import io.delayq.core.archive.DeadLetterReplayer;
import io.delayq.core.archive.JobArchive;
import io.delayq.core.archive.Page;
import io.delayq.core.archive.ReplayOutcome;
import io.delayq.core.archive.ReplayRequest;
import io.delayq.service.api.HeaderValues;
import io.delayq.service.api.JobView;
import io.delayq.service.audit.AuditTrail;
import io.delayq.service.auth.Role;
import io.delayq.service.auth.Scope;
import io.delayq.service.http.RangeParams;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;
import jakarta.ws.rs.core.UriBuilder;
import jakarta.ws.rs.core.UriInfo;

import java.util.Objects;
import java.util.function.Consumer;

/**
 * Dead letters in the archive: browse, show, replay, purge. Role {@code admin}; 401 without a valid token, 403
 * without the role. Errors are {@code application/problem+json}; 503 when the archive or the store cannot be
 * reached (nothing was changed, or, for a replay, repeating the request is safe).
 *
 * <p>A tenant's token works with its tenant's letters only: every filter is applied within its {@link Scope} (an empty
 * filter means its own topics; a {@code topic} outside them matches nothing), and a letter of another topic answers
 * 404 as a missing one (checked before this resource, see {@link io.delayq.service.auth.BearerAuthFeature}).
 */
@Path("/v1/admin/dead-letters")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
@RolesAllowed(Role.ADMIN)
public class DeadLettersResource {
    static final int DEFAULT_BULK_MAX = 1_000;
    static final int MAX_BULK_MAX = 10_000;
    private static final int MAX_KEY_LENGTH = 200;
    static final int MAX_GROUPS = 500;

    private final JobArchive archive;
    private final DeadLetterReplayer replayer;
    private final Consumer<Callback> callbackCheck;
    private final AuditTrail audit;

    /**
     * @param callbackCheck refuses a callback the service may not call (throws {@link IllegalArgumentException}), the
     *                      same check a newly scheduled job's callback passes
     */
    public DeadLettersResource(JobArchive archive, DeadLetterReplayer replayer, Consumer<Callback> callbackCheck,
                               AuditTrail audit) {
        this.archive = Objects.requireNonNull(archive, "archive");
        this.replayer = Objects.requireNonNull(replayer, "replayer");
        this.callbackCheck = Objects.requireNonNull(callbackCheck, "callbackCheck");
        this.audit = Objects.requireNonNull(audit, "audit");
    }

    /**
     * Lists dead letters, newest first.
     *
     * <ul>
     *   <li>200 OK: a page, with {@code nextCursor} when there is more</li>
     *   <li>422 Unprocessable Content: a bad topic, time, limit (1 to 1000) or cursor</li>
     * </ul>
     */
    @GET
    @Timed
    @ExceptionMetered
    @RolesAllowed({Role.ADMIN, Role.VIEWER})
    public DeadLetterPage list(@Context SecurityContext caller, @Context UriInfo uri,
                               @QueryParam("replayed") Boolean replayed,
                               @QueryParam("status") Integer status, @QueryParam("limit") Integer limit,
                               @QueryParam("cursor") String cursor) {
        var query = DeadLetterFilters.fromQuery(uri.getQueryParameters(), replayed, status,
                limit == null ? DeadLetterQuery.DEFAULT_LIMIT : limit, cursor)
                .withScope(Scope.of(caller).archiveScope());
        Page<DeadLetter> page = archive.deadLetters(query);
        return new DeadLetterPage(page.items().stream().map(DeadLetterView::of).toList(), page.nextCursor());
    }

    /**
     * Dead letters grouped by failure signature (the filters of the list), largest group first, at most {@code limit}
     * groups (1 to 500, default 50). The archive aggregates; nothing is loaded into the service.
     *
     * <ul>
     *   <li>200 OK: {@code {items: [{signature, count, lastHour, firstDeadAt, lastDeadAt, example}]}}</li>
     *   <li>422 Unprocessable Content: a bad filter or limit</li>
     * </ul>
     */
    @GET
    @Path("groups")
    @Timed
    @ExceptionMetered
    @RolesAllowed({Role.ADMIN, Role.VIEWER})
    public FailureGroupView.Groups groups(@Context SecurityContext caller, @Context UriInfo uri,
                                          @QueryParam("replayed") Boolean replayed,
                                          @QueryParam("status") Integer status, @QueryParam("limit") Integer limit) {
        int n = RangeParams.inRange("limit", limit, 50, 1, MAX_GROUPS);
        var query = DeadLetterFilters.fromQuery(uri.getQueryParameters(), replayed, status,
                DeadLetterQuery.DEFAULT_LIMIT, null).withScope(Scope.of(caller).archiveScope());
        return new FailureGroupView.Groups(archive.failureGroups(query, n, System.currentTimeMillis()).stream()
                .map(FailureGroupView::of).toList());
    }

    /**
     * The newest dead letter of a job.
     *
     * <ul>
     *   <li>200 OK: the dead letter with its attempts and replays</li>
     *   <li>404 Not Found: the job has no dead letter</li>
     * </ul>
     */
    @GET
    @Path("{topic}/{id}")
    @RolesAllowed({Role.ADMIN, Role.VIEWER})
    @Timed
    @ExceptionMetered
    public DeadLetterView get(@PathParam("topic") String topic, @PathParam("id") String id) {
        JobRef ref = ref(topic, id);
        return archive.deadLetter(ref).map(DeadLetterView::of).orElseThrow(() -> notFound(ref));
    }

    /**
     * Replays the newest dead letter of a job as a fresh job ({@code <id>:<createdAt>:r<n>}, attempts reset).
     * Idempotent: a repeat with the same {@code Idempotency-Key}, or without a key within 10 s of the last replay,
     * answers that replay.
     *
     * <ul>
     *   <li>201 Created: replayed; {@code Location} is the new job</li>
     *   <li>200 OK: a repeat of an earlier replay; nothing new was scheduled</li>
     *   <li>404 Not Found: the job has no dead letter (or it was purged)</li>
     *   <li>422 Unprocessable Content: a bad delay or callback</li>
     * </ul>
     */
    @POST
    @Path("{topic}/{id}/replay")
    @Timed
    @ExceptionMetered
    public Response replay(@Context SecurityContext caller, @PathParam("topic") String topic,
                           @PathParam("id") String id,
                           @HeaderParam("Idempotency-Key") String idempotencyKey, ReplayOneRequest body) {
        JobRef ref = ref(topic, id);
        String key = blankToNull(idempotencyKey);
        if (key != null && key.length() > MAX_KEY_LENGTH) {
            throw new IllegalArgumentException("Idempotency-Key is " + key.length() + " characters; at most "
                    + MAX_KEY_LENGTH + " are allowed");
        }
        Callback callback = null;
        if (body != null && body.callback() != null) {
            if (body.callback().url() == null) {
                throw new IllegalArgumentException("callback.url is required when a callback is given");
            }
            callback = new Callback(body.callback().url(), body.callback().headers());
            callbackCheck.accept(callback);
            HeaderValues.refuseMask("callback", callback);
        }
        ReplayOutcome outcome = replayer.replay(ref,
                new ReplayRequest(body == null ? null : body.delayMs(), callback, key));
        var response = new ReplayOneResponse(outcome.duplicate(), DeadLetterView.ReplayView.of(outcome.replay()),
                outcome.job() == null ? null : JobView.of(outcome.job()), DeadLetterView.of(outcome.deadLetter()));
        if (outcome.duplicate()) {
            return Response.ok(response).build();
        }
        audit.record(caller, ref.topic(), "dead-letter.replay", outcome.deadLetter().key(), 1,
                "new job " + outcome.replay().newJobId());
        return Response.created(UriBuilder.fromPath("/v1/topics/{topic}/jobs/{id}")
                .build(ref.topic(), outcome.replay().newJobId())).entity(response).build();
    }

    /**
     * Replays every dead letter matching a filter, newest first, at most {@code max} per request. Dead letters
     * replayed before are skipped unless {@code includeReplayed} or {@code replayed: true} (only those) says
     * otherwise, so repeating the request replays nothing twice. A
     * dead letter that cannot be replayed is reported in {@code failures} with the reason, and the others are
     * replayed all the same; {@code cursor: nextCursor} goes on after the letters taken, failed ones included.
     *
     * <ul>
     *   <li>200 OK: {@code {replayed, duplicates, failed, failures, more, nextCursor, stopped}}; {@code stopped} says
     *       the store or the archive could not be reached part-way (what was replayed stays replayed)</li>
     *   <li>422 Unprocessable Content: a bad topic, time, delay, max or cursor (nothing was replayed)</li>
     *   <li>503 Service Unavailable: the store or the archive cannot be reached (nothing was replayed)</li>
     * </ul>
     */
    @POST
    @Path("replay")
    @Timed
    @ExceptionMetered
    public BulkReplayResponse replayMany(@Context SecurityContext caller, DeadLetterFilter filter) {
        DeadLetterFilter f = filter == null ? DeadLetterFilter.none() : filter;
        if (f.expectedCount() != null) {
            throw new IllegalArgumentException("expectedCount is for a purge; a replay by filter takes at most max"
                    + " letters per request (or start a bulk operation, which takes an expectedCount)");
        }
        int max = f.max() == null ? DEFAULT_BULK_MAX : f.max();
        if (max < 1 || max > MAX_BULK_MAX) {
            throw new IllegalArgumentException("max is " + max + "; use 1 to " + MAX_BULK_MAX
                    + " and call again with cursor: nextCursor while the answer says more: true");
        }
        String cursor = blankToNull(f.cursor());
        if (cursor != null) {
            DeadLetterCursor.decode(cursor);
        }
        var query = new DeadLetterQuery(topic(f.topic()), time("from", f.from()), time("to", f.to()), replayed(f),
                DeadLetterQuery.DEFAULT_LIMIT, cursor).withScope(Scope.of(caller).archiveScope())
                .withCause(DeadLetterFilters.cause(f.cause()));
        var result = replayer.replayAll(query, f.delayMs(), true, max);
        if (result.replayed() > 0) {
            audit.record(caller, query.topic(), "dead-letters.replay", DeadLetterFilters.describe(query),
                    result.replayed(), null);
        }
        return BulkReplayResponse.of(result);
    }

    /**
     * Which letters a replay by filter takes: {@code replayed} as the list and a purge read it (true: the replayed
     * ones, false: the never-replayed ones); left out, the never-replayed ones, or every letter with
     * {@code includeReplayed: true}.
     */
    private static Boolean replayed(DeadLetterFilter f) {
        if (f.replayed() == null) {
            return Boolean.TRUE.equals(f.includeReplayed()) ? null : Boolean.FALSE;
        }
        if (f.replayed() && Boolean.FALSE.equals(f.includeReplayed())) {
            throw new IllegalArgumentException("replayed: true takes the letters replayed before, which"
                    + " includeReplayed: false leaves out; send one of them");
        }
        return f.replayed();
    }

    /**
     * Removes every dead letter of a job. Each leaves a tombstone, so that an archiver writing the same outbox entry
     * late cannot bring it back, and it can no longer be replayed.
     *
     * <ul>
     *   <li>204 No Content: removed</li>
     *   <li>404 Not Found: the job has no dead letter</li>
     * </ul>
     */
    @DELETE
    @Path("{topic}/{id}")
    @Timed
    @ExceptionMetered
    public Response purge(@Context SecurityContext caller, @PathParam("topic") String topic,
                          @PathParam("id") String id) {
        JobRef ref = ref(topic, id);
        long purged = archive.purgeDeadLetters(ref);
        if (purged == 0) {
            throw notFound(ref);
        }
        audit.record(caller, ref.topic(), "dead-letter.purge", ref.toString(), purged, null);
        return Response.noContent().build();
    }

    /**
     * Removes every dead letter matching a filter, each leaving a tombstone (see {@link #purge}). At least one of
     * {@code topic}, {@code from}, {@code to}, {@code replayed} is required, so that an empty body cannot wipe the
     * archive.
     *
     * <ul>
     *   <li>200 OK: {@code {purged}}</li>
     *   <li>409 Conflict: more letters match than {@code expectedCount} (nothing was purged)</li>
     *   <li>422 Unprocessable Content: no filter, or a bad topic or time</li>
     * </ul>
     */
    @POST
    @Path("purge")
    @Timed
    @ExceptionMetered
    public PurgeResponse purgeMany(@Context SecurityContext caller, DeadLetterFilter filter) {
        DeadLetterFilter f = filter == null ? DeadLetterFilter.none() : filter;
        var query = new DeadLetterQuery(topic(f.topic()), time("from", f.from()), time("to", f.to()), f.replayed(),
                DeadLetterQuery.DEFAULT_LIMIT, null).withScope(Scope.of(caller).archiveScope())
                .withCause(DeadLetterFilters.cause(f.cause()));
        if (query.isUnfiltered()) {
            throw new IllegalArgumentException("give at least one of topic, from, to or replayed; to purge every dead"
                    + " letter, send {\"to\": \"<a time after the newest>\"}");
        }
        Long expectedCount = DeadLetterFilters.expectedCount(f.expectedCount());
        if (expectedCount != null) {
            DeadLetterFilters.checkExpectedCount(archive.countDeadLetters(query), expectedCount);
        }
        long purged = archive.purgeDeadLetters(query);
        audit.record(caller, query.topic(), "dead-letters.purge", DeadLetterFilters.describe(query), purged, null);
        return new PurgeResponse(purged);
    }

    private static JobRef ref(String topic, String id) {
        return new JobRef(JobRules.checkClientTopic(topic), JobRules.checkClientId(id));
    }

    /**
     * A topic filter: any topic a store can hold, including one made only of dots that an earlier version accepted
     * (a filter is a value in a query or body, never a path step, and it is how such letters are reached).
     */
    private static String topic(String topic) {
        String t = blankToNull(topic);
        return t == null ? null : JobRules.checkTopic(t);
    }

    private static StoreException notFound(JobRef ref) {
        return new StoreException(StoreStatus.NOT_FOUND, "job " + ref + " has no dead letter in the archive");
    }

    private static String blankToNull(String s) {
        return DeadLetterFilters.blankToNull(s);
    }

    /** RFC 3339 only. */
    static Long time(String name, String value) {
        return DeadLetterFilters.time(name, value);
    }
}
