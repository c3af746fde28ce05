package io.delayq.service.bulk;

import com.codahale.metrics.annotation.Timed;
import io.delayq.core.JobRules;
import io.delayq.core.StoreException;
import io.delayq.core.StoreStatus;
import io.delayq.core.archive.BulkOperation;
import io.delayq.core.archive.DeadLetterQuery;
import io.delayq.core.archive.JobArchive;
import io.delayq.core.listing.JobQuery;
import io.delayq.service.api.JobView;
import io.delayq.service.audit.AuditTrail;
import io.delayq.service.auth.Role;
import io.delayq.service.auth.Scope;
import io.delayq.service.deadletters.DeadLetterFilters;
import io.delayq.service.errors.InvalidFieldsException;
import io.delayq.service.http.RangeParams;
import io.delayq.service.http.Times;
import io.delayq.service.listing.JobFilters;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.ClientErrorException;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
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

import java.util.Locale;
import java.util.UUID;
import java.util.function.LongSupplier;

/**
 * Replays or purges of every dead letter matching a filter, as tracked background operations: a dry run answers how
 * many letters match; a real run answers 202 at once with the operation, whose progress every instance can read and
 * any can cancel. Starting and cancelling need {@code admin}; reading, {@code admin} or {@code viewer}.
 *
 * <p>A tenant's token works through its own topics' letters only (an empty filter means its topics, never all), and
 * reads and cancels its own tenant's operations only: another's answers 404 as an unknown id.
 */
@Path("/v1/admin/bulk-operations")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
@RolesAllowed(Role.ADMIN)
public class BulkOperationsResource {
    private static final int MAX_ID_LENGTH = 100;
    static final String DEAD_LETTERS = "dead-letters";
    static final String JOBS = "jobs";

    private final JobArchive archive;
    private final BulkOperationRunner runner;
    private final JobOperationRunner jobRunner;
    private final AuditTrail audit;
    private final LongSupplier clock;

    public BulkOperationsResource(JobArchive archive, BulkOperationRunner runner, AuditTrail audit,
                                  LongSupplier clock) {
        this(archive, runner, null, audit, clock);
    }

    /** @param jobRunner runs operations on jobs ({@code target: "jobs"}); {@code null}: they are refused */
    public BulkOperationsResource(JobArchive archive, BulkOperationRunner runner, JobOperationRunner jobRunner,
                                  AuditTrail audit, LongSupplier clock) {
        this.archive = archive;
        this.runner = runner;
        this.jobRunner = jobRunner;
        this.audit = audit;
        this.clock = clock;
    }

    /**
     * <ul>
     *   <li>200 OK: a dry run, {@code {matching}}</li>
     *   <li>202 Accepted: started; {@code Location} is the operation</li>
     *   <li>409 Conflict: more letters match than {@code expectedCount} (nothing was started)</li>
     *   <li>422: no or an unknown kind, a bad filter, or a purge without any filter</li>
     * </ul>
     */
    @POST
    @Timed
    public Response start(@Context SecurityContext caller, BulkOperationRequest body) {
        if (body == null) {
            throw new IllegalArgumentException("send {\"kind\": \"replay\" or \"purge\", \"dryRun\": true|false,"
                    + " \"filter\": {...}}");
        }
        if (JOBS.equals(body.target())) {
            return startOnJobs(caller, body);
        }
        if (body.target() != null && !DEAD_LETTERS.equals(body.target())) {
            throw new IllegalArgumentException("target is " + JobRules.quote(body.target()) + "; use \"" + DEAD_LETTERS
                    + "\" (the default) or \"" + JOBS + "\"");
        }
        if (body.runAt() != null || body.shiftMs() != null) {
            throw new IllegalArgumentException("runAt and shiftMs are for a reschedule of jobs (target \"jobs\")");
        }
        BulkOperation.Kind kind = kind(body.kind());
        if (kind.onJobs()) {
            throw new IllegalArgumentException("kind " + kind.wireName() + " works on jobs: send target \"jobs\" (dead"
                    + " letters are replayed or purged)");
        }
        Scope scope = Scope.of(caller);
        DeadLetterQuery query = (body.filter() == null ? FilterSpec.NONE : body.filter()).toQuery()
                .withScope(scope.archiveScope());
        if (kind == BulkOperation.Kind.PURGE && query.isUnfiltered()) {
            throw new IllegalArgumentException("a purge needs at least one filter, so that an empty filter cannot wipe"
                    + " the archive; to purge everything, filter by \"to\": \"<a time after the newest letter>\"");
        }
        if (body.delayMs() != null && (kind != BulkOperation.Kind.REPLAY || body.delayMs() < 0)) {
            throw new IllegalArgumentException("delayMs is only for a replay, and at least 0");
        }
        Long expectedCount = DeadLetterFilters.expectedCount(body.expectedCount());
        if (kind == BulkOperation.Kind.REPLAY && query.replayed() == null) {
            // Left out, a replay takes the letters never replayed (so that repeating it replays nothing twice). Written
            // into the filter itself, so that the count, the run and the recorded filter are one set of letters, and
            // replayed: true means the replayed ones here as in the list and a purge.
            query = query.withReplayed(Boolean.FALSE);
        }
        long matching = archive.countDeadLetters(query);
        if (Boolean.TRUE.equals(body.dryRun())) {
            return Response.ok(new BulkOperationView.DryRun(matching)).build();
        }
        DeadLetterFilters.checkExpectedCount(matching, expectedCount);
        long now = clock.getAsLong();
        String actor = caller.getUserPrincipal().getName();
        String filter = DeadLetterFilters.describe(query);
        BulkOperation op = new BulkOperation(UUID.randomUUID().toString(), kind, filter, BulkOperation.State.RUNNING,
                matching, 0, 0, actor, now, now, false, null, scope.tenant());
        archive.operatorLog().save(op);
        audit.record(actor, auditTenant(op, scope, query.topic()), "bulk.start", filter, matching,
                kind.name().toLowerCase(Locale.ROOT) + " " + op.id());
        runner.start(op, query, body.delayMs());
        return Response.accepted(BulkOperationView.of(op, now))
                .location(UriBuilder.fromPath("/v1/admin/bulk-operations/{id}").build(op.id())).build();
    }

    /**
     * {@code target: "jobs"} (issue 29): cancel, run now or reschedule every job of one topic that the job listing's
     * filter matches. The same dry run, {@code expectedCount}, progress, cancel and audit as for dead letters.
     */
    private Response startOnJobs(SecurityContext caller, BulkOperationRequest body) {
        if (jobRunner == null) {
            throw new ClientErrorException("this service runs no bulk operations on jobs", Response.Status.NOT_FOUND);
        }
        BulkOperation.Kind kind = kind(body.kind());
        if (!kind.onJobs()) {
            throw new IllegalArgumentException("kind " + kind.wireName() + " works on dead letters; on jobs use"
                    + " \"cancel\", \"run-now\" or \"reschedule\"");
        }
        if (body.delayMs() != null) {
            throw new IllegalArgumentException("delayMs is only for a replay of dead letters; a reschedule of jobs takes"
                    + " runAt or shiftMs");
        }
        Long runAtMs = body.runAt() == null ? null : Times.parseRfc3339("runAt", body.runAt());
        if (kind == BulkOperation.Kind.RESCHEDULE && (runAtMs == null) == (body.shiftMs() == null)) {
            throw new InvalidFieldsException("a reschedule takes exactly one of runAt (the new run time) and shiftMs"
                    + " (how far to move each run time)", "runAt", "shiftMs");
        }
        if (kind != BulkOperation.Kind.RESCHEDULE && (runAtMs != null || body.shiftMs() != null)) {
            throw new IllegalArgumentException("runAt and shiftMs are only for kind \"reschedule\"");
        }
        FilterSpec filter = body.filter() == null ? FilterSpec.NONE : body.filter();
        JobQuery query = filter.toJobQuery();
        // A tenant's token works on its own topics only: another's answers 404, as a topic nobody used would.
        Scope scope = Scope.of(caller);
        scope.notFoundUnlessVisible(query.topic());
        Long expectedCount = DeadLetterFilters.expectedCount(body.expectedCount());
        long matching = jobRunner.count(query);
        if (Boolean.TRUE.equals(body.dryRun())) {
            return Response.ok(new BulkOperationView.DryRun(matching)).build();
        }
        if (expectedCount != null && matching > expectedCount) {
            throw new ClientErrorException(matching + " jobs match the filter now, more than the " + expectedCount
                    + " confirmed (expectedCount): jobs were scheduled since the dry run. Nothing was done; run the"
                    + " dry run again and confirm its count", Response.Status.CONFLICT);
        }
        long now = clock.getAsLong();
        String actor = caller.getUserPrincipal().getName();
        String described = JobFilters.describe(query);
        BulkOperation op = new BulkOperation(UUID.randomUUID().toString(), kind, described,
                BulkOperation.State.RUNNING, matching, 0, 0, actor, now, now, false, null, scope.tenant());
        archive.operatorLog().save(op);
        audit.record(actor, auditTenant(op, scope, query.topic()), "bulk.start", described, matching,
                kind.wireName() + " " + op.id()
                + (runAtMs != null ? " runAt=" + JobView.time(runAtMs) : "")
                + (body.shiftMs() != null ? " shiftMs=" + body.shiftMs() : ""));
        jobRunner.start(op, query, new JobAction(kind, runAtMs, body.shiftMs()));
        return Response.accepted(BulkOperationView.of(op, now))
                .location(UriBuilder.fromPath("/v1/admin/bulk-operations/{id}").build(op.id())).build();
    }

    /**
     * Whose {@code bulk.start} entry is: the operation's tenant when it has one (a tenant's token, or an operator
     * viewing a tenant, whose operation reaches that tenant's topics only: its {@code bulk.finish} is the tenant's
     * too), else the topic's owner by the scope's rule.
     */
    private static String auditTenant(BulkOperation op, Scope scope, String topic) {
        return op.tenant() != null ? op.tenant() : scope.auditTenant(topic);
    }

    /** The newest operations first, at most {@code limit} (1 to 200, default 20). */
    @GET
    @Timed
    @RolesAllowed({Role.ADMIN, Role.VIEWER})
    public BulkOperationView.Operations list(@Context SecurityContext caller, @QueryParam("limit") Integer limit) {
        int n = RangeParams.inRange("limit", limit, 20, 1, 200);
        long now = clock.getAsLong();
        return new BulkOperationView.Operations(archive.operatorLog().operations(n, Scope.of(caller).tenant()).stream()
                .map(op -> BulkOperationView.of(op, now)).toList());
    }

    /** One operation: 404 when there is none of that id. */
    @GET
    @Path("{id}")
    @Timed
    @RolesAllowed({Role.ADMIN, Role.VIEWER})
    public BulkOperationView get(@Context SecurityContext caller, @PathParam("id") String id) {
        return BulkOperationView.of(archive.operatorLog().operation(checkId(id), Scope.of(caller).tenant())
                .orElseThrow(() -> notFound(id)), clock.getAsLong());
    }

    /**
     * Asks a running replay to stop at its next batch. Only what can stop is accepted (and audited):
     *
     * <ul>
     *   <li>200 OK: the operation, {@code cancelRequested} (asked now, or by an earlier cancel)</li>
     *   <li>404 Not Found: no operation of that id</li>
     *   <li>409 Conflict: a purge (one archive call: it cannot stop half-way) or an operation that has finished</li>
     * </ul>
     */
    @POST
    @Path("{id}/cancel")
    @Timed
    public BulkOperationView cancel(@Context SecurityContext caller, @PathParam("id") String id) {
        String checked = checkId(id);
        String tenant = Scope.of(caller).tenant();
        BulkOperation op = archive.operatorLog().operation(checked, tenant).orElseThrow(() -> notFound(id));
        refuseUncancellable(op);
        if (!op.cancelRequested()) {
            op = archive.operatorLog().requestCancel(checked, tenant).orElseThrow(() -> notFound(id));
            refuseUncancellable(op); // it finished meanwhile
            // the operation's tenant's entry (an operator's operation stays operators' only, see BulkOperation)
            audit.record(caller.getUserPrincipal().getName(), op.tenant(), "bulk.cancel", op.filter(), op.done(),
                    op.kind().wireName() + " " + op.id());
        }
        return BulkOperationView.of(op, clock.getAsLong());
    }

    private static void refuseUncancellable(BulkOperation op) {
        if (op.state().finished()) {
            throw new ClientErrorException("bulk operation " + op.id() + " is " + op.state().name()
                    .toLowerCase(Locale.ROOT) + ": there is nothing left to cancel", Response.Status.CONFLICT);
        }
        if (op.kind() == BulkOperation.Kind.PURGE) {
            throw new ClientErrorException("bulk operation " + op.id() + " is a purge, which cannot be cancelled: it is"
                    + " one purge by its filter in the archive and ends by itself (its letters are gone when it is"
                    + " done)", Response.Status.CONFLICT);
        }
    }

    private static BulkOperation.Kind kind(String kind) {
        for (BulkOperation.Kind k : BulkOperation.Kind.values()) {
            if (k.wireName().equals(kind)) {
                return k;
            }
        }
        throw new IllegalArgumentException("kind is " + (kind == null ? "missing" : JobRules.quote(kind))
                + "; use \"replay\" or \"purge\" (dead letters), \"cancel\", \"run-now\" or \"reschedule\" (jobs,"
                + " with target \"jobs\")");
    }

    private static String checkId(String id) {
        if (id.length() > MAX_ID_LENGTH || !id.matches("[A-Za-z0-9-]+")) {
            throw new IllegalArgumentException(JobRules.quote(id) + " is not a bulk operation id");
        }
        return id;
    }

    private static StoreException notFound(String id) {
        return new StoreException(StoreStatus.NOT_FOUND, "no bulk operation " + id);
    }
}
