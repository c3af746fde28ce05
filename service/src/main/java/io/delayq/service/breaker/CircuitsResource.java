package io.delayq.service.breaker;

import com.codahale.metrics.annotation.ExceptionMetered;
import com.codahale.metrics.annotation.Timed;
import io.delayq.core.JobStore;
import io.delayq.core.breaker.CircuitBreakers;
import io.delayq.service.auth.Role;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
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

    /** 200 with every origin that has a record (read from the store now), by origin. */
    @GET
    @Timed
    @ExceptionMetered
    public CircuitView.Circuits list() {
        if (circuits == null) {
            return new CircuitView.Circuits(enabledByDefault, false, List.of());
        }
        return new CircuitView.Circuits(enabledByDefault, true,
                circuits.circuits().stream().map(CircuitView::of).toList());
    }
}
