package io.delayq.service.consumer;

import io.delayq.core.Failure;
import io.delayq.core.Job;
import io.delayq.core.JobRef;
import io.delayq.core.JobRules;
import io.delayq.core.JobStore;
import io.delayq.core.LeaseRef;
import io.delayq.core.LeaseToken;
import io.delayq.core.NackOutcome;
import io.delayq.core.PolicyDefaults;
import io.delayq.core.StoreException;
import io.delayq.core.StoreStatus;
import com.codahale.metrics.Counter;
import com.codahale.metrics.annotation.ExceptionMetered;
import com.codahale.metrics.annotation.Metered;
import com.codahale.metrics.annotation.Timed;
import jakarta.annotation.security.RolesAllowed;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.container.AsyncResponse;
import jakarta.ws.rs.container.Suspended;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Instant;
import java.util.List;
import java.util.Random;
import java.util.random.RandomGenerator;

/**
 * The pull API: consumers lease due jobs (long polling), then ack, nack or extend each lease. Role {@code consumer}.
 *
 * <p>Statuses: {@code 200} leases / extended; {@code 204} acked / nacked / released; {@code 400} malformed JSON; {@code 422}
 * invalid input (a missing lease token, a value out of range); {@code 404} no such job; {@code 409} the lease token
 * is stale (the lease expired and the job moved on, or it was already acked); {@code 503} the store is unavailable.
 * Nothing changes on any 4xx.
 */
@Path("/v1/topics/{topic}")
@RolesAllowed("consumer")
@Consumes(MediaType.APPLICATION_JSON)
@Produces(MediaType.APPLICATION_JSON)
public class LeaseResource {
    private static final int MAX_ERROR_CHARS = 4_000;
    private static final Logger LOG = LoggerFactory.getLogger(LeaseResource.class);

    private final JobStore store;
    private final PolicyDefaults defaults;
    private final JobRules rules;
    private final LeaseWaiters waiters;
    private final Counter lateAcks;
    private final PullActivity pulls;
    private final RandomGenerator random = new Random();

    /**
     * @param lateAcks counts acks and nacks whose token no longer holds the lease ({@link #LATE_ACKS})
     * @param pulls    counts the acks, the failed attempts and the dead letters that the store accepted
     */
    LeaseResource(JobStore store, PolicyDefaults defaults, JobRules rules, LeaseWaiters waiters, Counter lateAcks,
                  PullActivity pulls) {
        this.pulls = pulls;
        this.store = store;
        this.defaults = defaults;
        this.rules = rules;
        this.waiters = waiters;
        this.lateAcks = lateAcks;
    }

    /**
     * The counter of late confirmations: an ack or nack whose token no longer holds the lease, mostly a receiver that
     * answered 202 and confirmed after its lease had lapsed (the job was, or will be, delivered again).
     */
    static final String LATE_ACKS = "delayq.consumer.late-acks";

    /**
     * Leases up to {@code max} due jobs; when none is due, waits up to {@code waitMs} for one.
     * {@code 200 {"leases":[…]}}, possibly empty.
     */
    @POST
    @Path("/leases")
    @Metered
    @ExceptionMetered
    public void lease(@PathParam("topic") String topic, LeaseRequest body, @Suspended AsyncResponse response,
                      @Context HttpServletRequest servletRequest) {
        try {
            JobRules.checkTopic(topic);
            LeaseRequest request = (body == null ? new LeaseRequest(null, null, null) : body).resolved();
            waiters.lease(topic, request, response, ClientConnection.of(servletRequest));
        } catch (RuntimeException e) {
            response.resume(e);
        }
    }

    /** Marks the attempt successful. {@code 204}; {@code 409} when the token is stale (e.g. a second ack). */
    @POST
    @Path("/jobs/{id}/ack")
    @Timed
    @ExceptionMetered
    public void ack(@PathParam("topic") String topic, @PathParam("id") String id, AckRequest body) {
        LeaseRef lease = lease(topic, id, body == null ? null : body.leaseToken());
        StoreStatus status = store.ack(List.of(lease)).get(0);
        if (status == StoreStatus.OK) {
            pulls.acked(topic);
        }
        late(status, lease, "ack");
        StoreException.check(status, lease.job(), "acknowledged");
    }

    /**
     * Records a failed attempt. With {@code delayMs} the job runs again after that delay ("not now, put it back");
     * without it the job's retry policy decides. Either way a nack of the last attempt makes the job dead: every nack
     * uses the attempt it was leased for. With {@code noRetry: true} the job is dead now, cause {@code NO_RETRY},
     * whatever attempts it has left. {@code 204}.
     */
    @POST
    @Path("/jobs/{id}/nack")
    @Timed
    @ExceptionMetered
    public void nack(@PathParam("topic") String topic, @PathParam("id") String id, NackRequest body) {
        LeaseRef lease = lease(topic, id, body == null ? null : body.leaseToken());
        String error = errorText(body.error());
        Failure failure;
        if (body.endsJob()) {
            if (body.delayMs() != null) {
                throw new IllegalArgumentException("noRetry ends the job; it cannot also be put back (delayMs): send"
                        + " one of them");
            }
            failure = Failure.dead(error == null ? "the consumer said noRetry" : error, null,
                    io.delayq.core.DeadCause.NO_RETRY);
        } else if (body.delayMs() != null) {
            if (body.delayMs() < 0 || body.delayMs() > rules.maxDelayMs()) {
                throw new IllegalArgumentException("delayMs is " + body.delayMs() + "; put a job back 0 to "
                        + rules.maxDelayMs() + " ms (limits.maxDelay) later");
            }
            failure = Failure.retryAfter(body.delayMs(), error, null);
        } else {
            Job job = store.find(lease.job())
                    .orElseThrow(() -> new StoreException(StoreStatus.NOT_FOUND, "job " + lease.job() + " does not exist"));
            // A stale token is refused by the store below whatever we decide here.
            long delay = defaults.retryPolicy(job, store.settings(topic)).nextDelayMillis(job.attempts(), random);
            failure = delay < 0 ? Failure.dead(error, null) : Failure.retryAfter(delay, error, null);
        }
        StoreStatus status = failed(topic, lease, failure);
        late(status, lease, "nack");
        StoreException.check(status, lease.job(), "nacked");
    }

    /**
     * Gives the lease back without using its attempt: the job is due again at once, and its next lease has the same
     * attempt number (a worker shutting down, a consumer that took more than it can run). At most {@code maxAttempts}
     * releases per job are free; after that a release counts as the attempt, and on the last attempt the job is dead
     * ({@link LeaseReleases}). {@code 204}; {@code 409} when the token is stale.
     */
    @POST
    @Path("/jobs/{id}/release")
    @Timed
    @ExceptionMetered
    public void release(@PathParam("topic") String topic, @PathParam("id") String id, ReleaseRequest body) {
        LeaseRef lease = lease(topic, id, body == null ? null : body.leaseToken());
        Job job = store.find(lease.job())
                .orElseThrow(() -> new StoreException(StoreStatus.NOT_FOUND, "job " + lease.job() + " does not exist"));
        // The count and the release are consistent: a token that still holds the lease means that nothing but this
        // lease's holder has written the job since it was leased, and any other token is refused below.
        StoreStatus status = failed(topic, lease, LeaseReleases.of(job));
        late(status, lease, "release");
        StoreException.check(status, lease.job(), "released");
    }

    /** Records the nack or release in the store, and counts what it did ({@link PullActivity#recorded}). */
    private StoreStatus failed(String topic, LeaseRef lease, Failure failure) {
        NackOutcome outcome = store.nackOutcome(lease, failure);
        pulls.recorded(topic, failure, outcome);
        return outcome.status();
    }

    /** Extends the lease to {@code leaseMs} from now. {@code 200 {"leaseDeadline"}}. */
    @POST
    @Path("/jobs/{id}/extend")
    @Timed
    @ExceptionMetered
    public ExtendResponse extend(@PathParam("topic") String topic, @PathParam("id") String id, ExtendRequest body) {
        LeaseRef lease = lease(topic, id, body == null ? null : body.leaseToken());
        Long leaseMs = body.leaseMs();
        if (leaseMs == null || leaseMs < 1 || leaseMs > LeaseRequest.MAX_LEASE_MS) {
            throw new IllegalArgumentException("leaseMs is " + leaseMs + "; extend a lease by 1 to "
                    + LeaseRequest.MAX_LEASE_MS + " ms from now");
        }
        return new ExtendResponse(Instant.ofEpochMilli(store.extend(lease, leaseMs)).toString());
    }

    /**
     * A confirmation that came after its lease: visible (INFO and {@link #LATE_ACKS}), since it usually means the job
     * runs, or ran, twice: the receiver's work outlived its lease or its {@code asyncAckTimeout}.
     */
    private void late(StoreStatus status, LeaseRef lease, String what) {
        if (status == StoreStatus.STALE_LEASE) {
            lateAcks.inc();
            LOG.info("Late {} of job {}: its lease token no longer holds the lease (the lease ended, or another attempt"
                    + " has it); the job may have been delivered again", what, lease.job());
        }
    }

    private static LeaseRef lease(String topic, String id, String token) {
        JobRules.checkTopic(topic);
        JobRules.checkId(id);
        if (token == null || token.isBlank()) {
            throw new IllegalArgumentException("leaseToken is required: send the leaseToken the lease answer gave");
        }
        try {
            return new LeaseRef(new JobRef(topic, id), LeaseToken.parse(token));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("leaseToken " + e.getMessage() + "; send the leaseToken of the lease"
                    + " answer, or the callback's Delayq-Lease-Token, unchanged");
        }
    }

    private static String errorText(String error) {
        if (error == null || error.isBlank()) {
            return "nacked by the consumer";
        }
        return error.length() <= MAX_ERROR_CHARS ? error : error.substring(0, MAX_ERROR_CHARS) + "…";
    }
}
