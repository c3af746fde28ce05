package io.delayq.service.schedules;

import com.codahale.metrics.annotation.ExceptionMetered;
import com.codahale.metrics.annotation.Timed;
import io.delayq.core.JobRules;
import io.delayq.core.JobStore;
import io.delayq.core.NewJob;
import io.delayq.core.StoreException;
import io.delayq.core.StoreStatus;
import io.delayq.core.schedule.Fire;
import io.delayq.core.schedule.FireIds;
import io.delayq.core.schedule.ScheduleRecord;
import io.delayq.core.schedule.ScheduleStore;
import io.delayq.core.schedule.ScheduleStore.Advance;
import io.delayq.core.schedule.ScheduleStore.AdvanceResult;
import io.delayq.service.audit.AuditTrail;
import io.delayq.service.auth.Role;
import io.delayq.service.errors.InvalidFieldsException;
import io.delayq.service.jobs.EnqueueGate;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Recurring schedules of a topic: {@code PUT/GET/DELETE /v1/topics/{topic}/schedules/{name}}, the list, pause,
 * resume and run now. Producers and admins manage them; viewers read. Every change is audited. The fires themselves
 * are the {@link ScheduleRunner}'s, on every instance.
 */
@Path("/v1/topics/{topic}/schedules")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
@RolesAllowed({Role.PRODUCER, Role.ADMIN, Role.VIEWER})
public class SchedulesResource {
    static final int DEFAULT_LIMIT = 100;
    static final int MAX_LIMIT = 1_000;

    private final JobStore store;
    private final ScheduleJobs jobs;
    private final AuditTrail audit;
    private final EnqueueGate quotas;

    public SchedulesResource(JobStore store, ScheduleJobs jobs, AuditTrail audit) {
        this(store, jobs, audit, EnqueueGate.OPEN);
    }

    /** @param quotas the tenants' quotas: a new schedule counts as a pending job of its topic's tenant */
    public SchedulesResource(JobStore store, ScheduleJobs jobs, AuditTrail audit, EnqueueGate quotas) {
        this.store = store;
        this.jobs = jobs;
        this.audit = audit;
        this.quotas = quotas;
    }

    /**
     * A topic's schedules in name order.
     *
     * <ul>
     *   <li>200 OK: {@code {items, nextCursor}}</li>
     *   <li>400 Bad Request: {@code limit} out of 1..1000, or a cursor that is not a schedule name</li>
     * </ul>
     */
    @GET
    @Timed
    @ExceptionMetered
    public SchedulePage list(@PathParam("topic") String topic, @QueryParam("limit") Integer limit,
                             @QueryParam("cursor") String cursor) {
        JobRules.checkClientTopic(topic);
        int n = limit == null ? DEFAULT_LIMIT : limit;
        if (n < 1 || n > MAX_LIMIT) {
            throw new InvalidFieldsException("limit is " + n + "; it must be from 1 to " + MAX_LIMIT, "limit");
        }
        if (cursor != null) {
            name("cursor", cursor);
        }
        List<ScheduleRecord> page = schedules().list(topic, cursor, n + 1);
        List<ScheduleView> items = new ArrayList<>();
        for (ScheduleRecord r : page.subList(0, Math.min(n, page.size()))) {
            items.add(ScheduleView.of(r, jobs.read(r)));
        }
        return new SchedulePage(items, page.size() > n ? items.get(n - 1).name() : null);
    }

    /**
     * One schedule with its next fire times and its last 20 fires.
     *
     * <ul>
     *   <li>200 OK</li>
     *   <li>404 Not Found: no such schedule</li>
     * </ul>
     */
    @GET
    @Path("{name}")
    @Timed
    @ExceptionMetered
    public ScheduleView get(@PathParam("topic") String topic, @PathParam("name") String name) {
        ScheduleRecord r = existing(topic, name);
        return ScheduleView.of(r, jobs.read(r));
    }

    /**
     * Creates or replaces a schedule (the whole of it: fields left out take their defaults). Its fires start after
     * this request; fires before it are not made up. Its history of fires is kept.
     *
     * <ul>
     *   <li>201 Created, or 200 OK when it replaced one</li>
     *   <li>400 Bad Request: a field of the schedule is wrong ({@code cron}, {@code timeZone}, {@code startAt},
     *       {@code endAt}, {@code misfire}, {@code misfireAfter}; named in {@code fields}), or not JSON of the shape</li>
     *   <li>403 Forbidden: the token is neither a producer's nor an admin's</li>
     *   <li>429 Too Many Requests: a new schedule in a tenant at its {@code maxPendingJobs} (a schedule counts as a
     *       pending job) or a new topic beyond its {@code maxTopics}; problem {@code quota-exceeded}, with
     *       {@code Retry-After}</li>
     *   <li>422 Unprocessable Content: the job template breaks a job's rule ({@code job.payload}, {@code job.callback} …)</li>
     * </ul>
     */
    @PUT
    @Path("{name}")
    @Timed
    @ExceptionMetered
    @RolesAllowed({Role.PRODUCER, Role.ADMIN})
    public Response put(@Context SecurityContext caller, @PathParam("topic") String topic,
                        @PathParam("name") String name, ScheduleRequest body) {
        JobRules.checkClientTopic(topic);
        name("schedule", name);
        Optional<ScheduleRecord> current = schedules().get(topic, name);
        CheckedSchedule schedule = CheckedSchedule.of(keepingStoredHeaderValues(body, current));
        // the template must make a job now, with a placeholder id of the namespace
        jobs.job(topic, schedule, FireIds.of(name, 0), null);
        boolean existed = current.isPresent();
        ScheduleRecord stored;
        if (existed) {
            stored = store(topic, name, schedule); // a replace holds the place its schedule already took
        } else {
            // a new schedule counts as a pending job of the topic's tenant (429 quota-exceeded at maxPendingJobs)
            quotas.admitSchedule(topic);
            try {
                stored = store(topic, name, schedule);
            } finally {
                quotas.settled(topic, 1);
            }
        }
        audit.record(caller, topic, "schedule.put", topic + "/" + name, 0, detail(schedule));
        ScheduleView view = ScheduleView.of(stored, schedule);
        return Response.status(existed ? 200 : 201).entity(view).build();
    }

    /**
     * Deletes a schedule; jobs it enqueued stay.
     *
     * <ul>
     *   <li>204 No Content</li>
     *   <li>404 Not Found: no such schedule</li>
     * </ul>
     */
    @DELETE
    @Path("{name}")
    @Timed
    @ExceptionMetered
    @RolesAllowed({Role.PRODUCER, Role.ADMIN})
    public Response delete(@Context SecurityContext caller, @PathParam("topic") String topic,
                           @PathParam("name") String name) {
        JobRules.checkClientTopic(topic);
        name("schedule", name);
        if (!schedules().delete(topic, name)) {
            throw notFound(topic, name);
        }
        audit.record(caller, topic, "schedule.delete", topic + "/" + name, 0, null);
        return Response.noContent().build();
    }

    /**
     * Pauses a schedule: no fires until it is resumed (the same as a PUT with {@code paused: true}).
     *
     * <ul>
     *   <li>200 OK: the schedule</li>
     *   <li>404 Not Found: no such schedule</li>
     * </ul>
     */
    @POST
    @Path("{name}/pause")
    @Timed
    @ExceptionMetered
    @RolesAllowed({Role.PRODUCER, Role.ADMIN})
    public ScheduleView pause(@Context SecurityContext caller, @PathParam("topic") String topic,
                              @PathParam("name") String name) {
        return setPaused(caller, topic, name, true);
    }

    /**
     * Resumes a schedule: its fires start from now; those it missed while paused are not made up.
     *
     * <ul>
     *   <li>200 OK: the schedule</li>
     *   <li>404 Not Found: no such schedule</li>
     * </ul>
     */
    @POST
    @Path("{name}/resume")
    @Timed
    @ExceptionMetered
    @RolesAllowed({Role.PRODUCER, Role.ADMIN})
    public ScheduleView resume(@Context SecurityContext caller, @PathParam("topic") String topic,
                               @PathParam("name") String name) {
        return setPaused(caller, topic, name, false);
    }

    /**
     * Enqueues the schedule's job now, paused or not; its cron fires go on as before. The fire is in its history as
     * {@code run_now}.
     *
     * <ul>
     *   <li>202 Accepted: {@code {topic, jobId}}</li>
     *   <li>404 Not Found: no such schedule</li>
     *   <li>413, 429: the tenant's quotas, as for any enqueue (quota-exceeded)</li>
     *   <li>422 Unprocessable Content: the job template no longer makes a job (the topic's rules changed)</li>
     * </ul>
     */
    @POST
    @Path("{name}/run")
    @Timed
    @ExceptionMetered
    @RolesAllowed({Role.PRODUCER, Role.ADMIN})
    public Response run(@Context SecurityContext caller, @PathParam("topic") String topic,
                        @PathParam("name") String name) {
        ScheduleRecord r = existing(topic, name);
        CheckedSchedule schedule = jobs.read(r);
        long now = store.now();
        NewJob job = jobs.job(topic, schedule, FireIds.runNow(name, now), null);
        // a run now is a person's enqueue of one job: the tenant's quotas apply as to any (a cron fire was admitted
        // with its schedule, see docs/schedules.md)
        quotas.check(topic, job);
        quotas.admit(topic, List.of(job));
        AdvanceResult result;
        try {
            result = schedules().runNow(topic, name, new Fire(now, null, Fire.Kind.RUN_NOW, 1, now), job);
        } finally {
            quotas.settled(topic, 1);
        }
        if (result.outcome() == Advance.NOT_FOUND) {
            throw notFound(topic, name);
        }
        jobs.enqueued(topic);
        audit.record(caller, topic, "schedule.run", topic + "/" + name, 1, result.jobId());
        return Response.accepted(new RunNowResult(topic, result.jobId())).build();
    }

    private ScheduleView setPaused(SecurityContext caller, String topic, String name, boolean paused) {
        ScheduleRecord r = existing(topic, name);
        CheckedSchedule schedule = CheckedSchedule.of(jobs.read(r).definition().withPaused(paused));
        ScheduleRecord stored = store(topic, name, schedule);
        audit.record(caller, topic, paused ? "schedule.pause" : "schedule.resume", topic + "/" + name, 0, null);
        return ScheduleView.of(stored, schedule);
    }

    /**
     * The body with each callback or onDead header value sent back as the mask given its stored value (views show
     * them masked; an edit form sends them back so): a mask with nothing stored under its name, or with the URL moved
     * to another origin, is a 422.
     */
    private ScheduleRequest keepingStoredHeaderValues(ScheduleRequest body, Optional<ScheduleRecord> current) {
        if (body == null || body.job() == null) {
            return body;
        }
        JobTemplate stored = current.map(r -> jobs.read(r).definition().job()).orElse(null);
        JobTemplate kept = body.job().keepingStoredHeaderValues(stored);
        return kept == body.job() ? body : body.withJob(kept);
    }

    private ScheduleRecord store(String topic, String name, CheckedSchedule schedule) {
        // The first due time from the store's clock, as the cursor the put sets; the scheduler corrects it if the
        // put's own reading of the clock came a little later.
        Long due = schedule.paused() ? null : schedule.cron().nextAfter(store.now()).orElse(null);
        return schedules().put(topic, name, jobs.write(schedule), due);
    }

    private ScheduleRecord existing(String topic, String name) {
        JobRules.checkClientTopic(topic);
        name("schedule", name);
        return schedules().get(topic, name).orElseThrow(() -> notFound(topic, name));
    }

    private ScheduleStore schedules() {
        return store.schedules();
    }

    private static String detail(CheckedSchedule schedule) {
        ScheduleRequest d = schedule.definition();
        String text = d.cron() + " " + d.timeZone() + " misfire " + d.misfire() + (schedule.paused() ? " paused" : "");
        return text.length() <= 500 ? text : text.substring(0, 500) + "…";
    }

    private static void name(String what, String name) {
        try {
            JobRules.checkClientName(what, name);
        } catch (IllegalArgumentException e) {
            throw new InvalidFieldsException(e.getMessage(), what.equals("schedule") ? "name" : what);
        }
    }

    private static StoreException notFound(String topic, String name) {
        return new StoreException(StoreStatus.NOT_FOUND, "schedule '" + name + "' of topic " + topic
                + " does not exist");
    }
}
