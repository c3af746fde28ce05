package io.delayq.service.breaker;

import com.codahale.metrics.annotation.ExceptionMetered;
import com.codahale.metrics.annotation.Timed;
import io.delayq.core.JobStore;
import io.delayq.core.breaker.CircuitBreakers;
import io.delayq.core.breaker.OriginCircuit;
import io.delayq.service.auth.Role;
import io.delayq.service.http.Paging;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;

import java.util.List;

/**
 * The endpoint circuit breakers of every callback origin, as the store keeps them for all instances. Roles
 * {@code admin} and {@code viewer}; 503 when the store cannot be reached.
 */
@Path("/v1/admin/circuits")
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed({Role.ADMIN, Role.VIEWER})
public class CircuitsResource {
    private final CircuitBreakers circuits;
    private final boolean enabledByDefault;

    public CircuitsResource(JobStore store, boolean enabledByDefault) {
        CircuitBreakers kept;
        try {
            kept = store.circuitBreakers();
        } catch (UnsupportedOperationException none) {
            kept = null;
        }
        this.circuits = kept;
        this.enabledByDefault = enabledByDefault;
    }

    /**
     * One page of circuits by origin, read from the store now (issue 26, finding 5: the records are bounded and the
     * listing paged).
     *
     * <ul>
     *   <li>200 OK: {@code {enabled, kept, items, nextCursor}}; {@code nextCursor} absent on the last page</li>
     *   <li>400 Bad Request: a {@code limit} outside 1 to 1000, or a {@code cursor} this service did not give</li>
     * </ul>
     */
    @GET
    @Timed
    @ExceptionMetered
    public CircuitView.Circuits list(@QueryParam("limit") Integer limit, @QueryParam("cursor") String cursor) {
        int pageSize = Paging.limit(limit);
        String after = Paging.after(cursor);
        if (circuits == null) {
            return new CircuitView.Circuits(enabledByDefault, false, List.of(), null);
        }
        // one more than the page, to know whether another page follows without an empty last page
        List<OriginCircuit> read = circuits.circuits(after, pageSize + 1);
        List<OriginCircuit> page = read.size() > pageSize ? read.subList(0, pageSize) : read;
        String next = read.size() > pageSize ? Paging.of(page.get(page.size() - 1).origin()) : null;
        return new CircuitView.Circuits(enabledByDefault, true, page.stream().map(CircuitView::of).toList(), next);
    }
}
