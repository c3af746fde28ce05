package io.delayq.service.listing;

import com.codahale.metrics.annotation.ExceptionMetered;
import com.codahale.metrics.annotation.Timed;
import io.delayq.core.JobStore;
import io.delayq.core.listing.JobPage;
import io.delayq.core.listing.JobQuery;
import io.delayq.service.api.JobView;
import io.delayq.service.auth.Role;
import io.delayq.service.http.RangeParams;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;

import java.util.List;
import java.util.Objects;

/**
 * {@code GET /v1/topics/{topic}/jobs}: a topic's pending jobs in due order, or its retained finished ones in finish
 * order, a page at a time ({@link JobStore#listJobs}). Producers, viewers and admins read it. Its own class under the
 * topic's path (Jersey merges the resources of one path), so that the jobs resource does not grow.
 */
@Path("/v1/topics/{topic}")
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed({Role.PRODUCER, Role.VIEWER, Role.ADMIN})
public class JobListingResource {
    private final JobStore store;

    public JobListingResource(JobStore store) {
        this.store = Objects.requireNonNull(store, "store");
    }

    /**
     * <ul>
     *   <li>200 OK: a page, with {@code nextCursor} when there is more</li>
     *   <li>400 Bad Request: {@code payloadField} without {@code payloadValue} or the other way round</li>
     *   <li>422 Unprocessable Content: a bad topic, state, time, id prefix, payload field, limit (1 to 1000) or
     *       cursor, or pending and finished states together</li>
     *   <li>503 Service Unavailable: the store cannot be reached</li>
     * </ul>
     */
    @GET
    @Path("jobs")
    @Timed
    @ExceptionMetered
    public JobListPage list(@PathParam("topic") String topic, @QueryParam("state") List<String> state,
                            @QueryParam("from") String from, @QueryParam("to") String to,
                            @QueryParam("idPrefix") String idPrefix, @QueryParam("payloadField") String payloadField,
                            @QueryParam("payloadValue") String payloadValue, @QueryParam("limit") Integer limit,
                            @QueryParam("cursor") String cursor) {
        int n = RangeParams.inRange("limit", limit, JobQuery.DEFAULT_LIMIT, 1, JobQuery.MAX_LIMIT);
        JobQuery query = JobFilters.query(topic, state, from, to, idPrefix, payloadField, payloadValue, n, cursor);
        JobPage page = store.listJobs(query);
        return new JobListPage(page.items().stream().map(JobView::of).toList(), page.nextCursor());
    }
}
