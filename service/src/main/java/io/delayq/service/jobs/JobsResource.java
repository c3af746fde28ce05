package io.delayq.service.jobs;

import com.codahale.metrics.annotation.ExceptionMetered;
import com.codahale.metrics.annotation.Timed;
import io.delayq.core.EnqueueResult;
import io.delayq.core.Job;
import io.delayq.core.JobRef;
import io.delayq.core.JobStore;
import io.delayq.core.StoreException;
import io.delayq.core.StoreStatus;
import io.delayq.core.TraceContext;
import io.delayq.service.api.JobView;
import io.delayq.service.audit.AuditTrail;
import io.delayq.service.auth.Role;
import io.delayq.service.errors.Problem;
import io.delayq.service.errors.QuotaExceededException;
import io.delayq.service.jobs.JobScheduler.BatchOutcome;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;
import jakarta.ws.rs.core.UriBuilder;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;

/**
 * The producer API: schedule, batch-schedule, read, cancel and reschedule jobs. Errors are
 * {@code application/problem+json}; 401 without a valid token, 403 without the producer or admin role.
 *
 * <p>Every resource under one topic shares the root path {@code /v1/topics/{topic}} so that Jersey merges them into
 * one resource: JAX-RS picks a single root resource per request and does not backtrack, so two roots where one is a
 * prefix of the other would hide each other's sub-paths.
 */
@Path("/v1/topics/{topic}")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
@RolesAllowed({Role.PRODUCER, Role.ADMIN})
public class JobsResource {
    /**
     * W3C Trace Context headers of an enqueue: stored with the job and carried on to its deliveries. One that is not
     * valid is ignored, not refused, as W3C asks of a receiver (the trace restarts; see docs/callbacks.md, "Trace context").
     */
    static final String TRACEPARENT = "traceparent";
    static final String TRACESTATE = "tracestate";

    private final JobStore store;
    private final JobLookup lookup;
    private final JobScheduler scheduler;
    private final int maxBatchSize;
    private final AuditTrail audit;

    /**
     * {@code store} serves cancel; {@code lookup} serves {@code GET} (the store, else the archive); {@code audit}
     * records the cancels and reschedules of operators.
     */
    public JobsResource(JobStore store, JobLookup lookup, JobScheduler scheduler, int maxBatchSize, AuditTrail audit) {
        this.store = store;
        this.lookup = lookup;
        this.scheduler = scheduler;
        this.maxBatchSize = maxBatchSize;
        this.audit = audit;
    }

    /**
     * Schedules a job.
     *
     * <ul>
     *   <li>201 Created: the job, with {@code Location}</li>
     *   <li>200 OK: a job with this id and the same content exists already (an idempotent repeat)</li>
     *   <li>400 Bad Request: the body is not JSON of the right shape (unknown field, wrong type)</li>
     *   <li>409 Conflict: the id is taken by a job with different content</li>
     *   <li>422 Unprocessable Content: a rule is broken (topic or id, payload size, delay, callback URL …)</li>
     *   <li>503 Service Unavailable: the store cannot be reached or did not confirm the write in time; it may or
     *   may not have been stored (send it again with the same id)</li>
     * </ul>
     */
    @POST
    @Path("jobs")
    @Timed
    @ExceptionMetered
    public Response schedule(@PathParam("topic") String topic,
                             @HeaderParam(TRACEPARENT) String traceparent, @HeaderParam(TRACESTATE) String tracestate,
                             ScheduleJobRequest request) {
        if (request == null) {
            throw new IllegalArgumentException("a JSON body is required, e.g. {\"delayMs\": 5000, \"payload\": {}}");
        }
        EnqueueResult result = scheduler.schedule(topic, request, TraceContext.fromHeaders(traceparent, tracestate));
        JobView view = JobView.of(result.job());
        if (!result.created()) {
            return Response.ok(view).build();
        }
        return Response.created(jobUri(topic, view.id())).entity(view).build();
    }

    /**
     * Schedules up to {@code limits.maxBatchSize} jobs of one topic at once. Each item gets the status the single
     * endpoint would have answered (201, 200, 409, 422); refused items do not stop the others.
     *
     * <ul>
     *   <li>200 OK: per-item results</li>
     *   <li>400 Bad Request: the body is not JSON of the right shape (nothing is stored)</li>
     *   <li>422 Unprocessable Content: no jobs, or more than the batch limit (nothing is stored)</li>
     *   <li>503 Service Unavailable: the store cannot be reached or did not confirm the write in time; it may or
     *   may not have been stored (send it again with the same id)</li>
     * </ul>
     */
    @POST
    @Path("jobs/batch")
    @Timed
    @ExceptionMetered
    public BatchResult scheduleBatch(@PathParam("topic") String topic,
                                     @HeaderParam(TRACEPARENT) String traceparent,
                                     @HeaderParam(TRACESTATE) String tracestate, BatchRequest request) {
        if (request == null || request.jobs() == null || request.jobs().isEmpty()) {
            throw new IllegalArgumentException("send {\"jobs\": [ … ]} with 1 to " + maxBatchSize + " jobs");
        }
        if (request.jobs().size() > maxBatchSize) {
            throw new IllegalArgumentException("the batch has " + request.jobs().size() + " jobs; at most "
                    + maxBatchSize + " are allowed per request (limits.maxBatchSize)");
        }
        List<BatchOutcome> outcomes = scheduler.scheduleBatch(topic, request.jobs(),
                TraceContext.fromHeaders(traceparent, tracestate));
        var items = new ArrayList<BatchResult.Item>(outcomes.size());
        int created = 0;
        int existing = 0;
        for (int i = 0; i < outcomes.size(); i++) {
            BatchOutcome o = outcomes.get(i);
            if (o.refused() instanceof QuotaExceededException quota) {
                items.add(new BatchResult.Item(i, quota.status(), o.id(), null, quota.problem()));
            } else if (o.refused() != null) {
                items.add(new BatchResult.Item(i, 422, o.id(), null,
                        Problem.of("invalid-request", 422, o.refused().getMessage())));
            } else if (o.result().status() == StoreStatus.CONFLICT) {
                items.add(new BatchResult.Item(i, 409, o.id(), null, Problem.of("conflict", 409,
                        "job " + topic + "/" + o.id() + " already exists with different content")));
            } else {
                boolean isNew = o.result().created();
                created += isNew ? 1 : 0;
                existing += isNew ? 0 : 1;
                items.add(new BatchResult.Item(i, isNew ? 201 : 200, o.id(), JobView.of(o.result().job()), null));
            }
        }
        return new BatchResult(created, existing, items.size() - created - existing, items);
    }

    /**
     * A job and its state; a finished job stays readable while the store keeps it, then from the archive when the
     * archive has it (dead letters; succeeded jobs of topics with {@code archiveSucceeded}).
     *
     * <ul>
     *   <li>200 OK: the job</li>
     *   <li>404 Not Found: no such job</li>
     *   <li>422 Unprocessable Content: the topic or id is not valid</li>
     *   <li>503 Service Unavailable: the store, or (for a job the store does not know) the archive cannot be
     *       reached</li>
     * </ul>
     */
    @GET
    @Path("jobs/{id}")
    @RolesAllowed({Role.PRODUCER, Role.ADMIN, Role.VIEWER})
    @Timed
    @ExceptionMetered
    public JobView get(@PathParam("topic") String topic, @PathParam("id") String id) {
        JobRef ref = JobScheduler.check(new JobRef(topic, id));
        return lookup.find(ref).map(JobView::of)
                .orElseThrow(() -> new StoreException(StoreStatus.NOT_FOUND, "job " + ref + " does not exist"));
    }

    /**
     * Cancels a job that has not finished; an attempt in flight is not retried.
     *
     * <ul>
     *   <li>204 No Content: cancelled</li>
     *   <li>404 Not Found: no such job</li>
     *   <li>409 Conflict: the job has already finished (succeeded, dead or cancelled)</li>
     * </ul>
     */
    @DELETE
    @Path("jobs/{id}")
    @Timed
    @ExceptionMetered
    public Response cancel(@Context SecurityContext caller, @PathParam("topic") String topic,
                           @PathParam("id") String id) {
        JobRef ref = JobScheduler.check(new JobRef(topic, id));
        store.cancel(ref);
        if (byOperator(caller)) {
            audit.record(caller, topic, "job.cancel", ref.toString(), 1, null);
        }
        return Response.noContent().build();
    }

    /**
     * Moves a job that has not finished to a new run time: {@code {"delayMs": …}} or {@code {"runAt": "…"}}.
     *
     * <ul>
     *   <li>200 OK: the job with its new run time</li>
     *   <li>404 Not Found: no such job</li>
     *   <li>409 Conflict: the job has already finished</li>
     *   <li>422 Unprocessable Content: neither or both fields, a negative or too distant time</li>
     * </ul>
     */
    @POST
    @Path("jobs/{id}/reschedule")
    @Timed
    @ExceptionMetered
    public JobView reschedule(@Context SecurityContext caller, @PathParam("topic") String topic,
                              @PathParam("id") String id, RescheduleRequest request) {
        Job job = scheduler.reschedule(new JobRef(topic, id), request);
        if (byOperator(caller)) {
            audit.record(caller, topic, "job.reschedule", job.ref().toString(), 1,
                    "now due at " + JobView.time(job.runAt()));
        }
        return JobView.of(job);
    }

    /**
     * Whether a change of one job is an operator's (a token with the admin role, as the dashboard's cancel and
     * reschedule are) and so goes to the audit log. A producer cancelling its own jobs is the application at work, as
     * often as it schedules them: an audit entry each would cost an archive write per call and bury the operators'
     * actions.
     */
    private static boolean byOperator(SecurityContext caller) {
        return caller != null && caller.isUserInRole(Role.ADMIN);
    }

    /**
     * The job's path, for {@code Location}. Topic and id have been checked ({@link io.delayq.core.JobRules}): their
     * characters are all allowed in a path segment as they are, so the path is joined rather than built through a
     * {@link UriBuilder} template, which parsed and encoded it again on every POST.
     */
    static URI jobUri(String topic, String id) {
        return URI.create("/v1/topics/" + topic + "/jobs/" + id);
    }
}
