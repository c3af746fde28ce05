package io.delayq.service.breaker;

import com.codahale.metrics.annotation.ExceptionMetered;
import com.codahale.metrics.annotation.Timed;
import io.delayq.core.JobStore;
import io.delayq.core.breaker.CircuitBreakers;
import io.delayq.core.archive.JobArchive;
import io.delayq.core.breaker.OriginCircuit;
import io.delayq.core.ratelimit.Rate;
import io.delayq.service.auth.Role;
import io.delayq.service.auth.Scope;
import io.delayq.service.http.Paging;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.SecurityContext;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * The endpoint circuit breakers of every callback origin, as the store keeps them for all instances. Roles
 * {@code admin} and {@code viewer}; 503 when the store cannot be reached.
 *
 * <p>A tenant's token sees the origins its own topics use ({@link TenantOrigins}) in the one state everyone shares,
 * with {@code heldJobs} of its own jobs only ({@link TenantHeldJobs}): the circuit's count is of every tenant's jobs
 * together. An operator (not viewing a tenant) sees that store-wide count.
 *
 * <p>Each circuit carries its origin's configured rate limit ({@code delivery.originRateLimits}), and every page the
 * configured limits the caller may see: the two reasons a callback origin's jobs wait, read in one place.
 */
@Path("/v1/admin/circuits")
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed({Role.ADMIN, Role.VIEWER})
public class CircuitsResource {
    private final CircuitBreakers circuits;
    private final boolean enabledByDefault;
    private final JobStore store;
    private final JobArchive archive;
    /** The configured origin limits by origin (checked at start-up), in origin order. */
    private final Map<String, Rate> originRates;

    /** @param originRates {@code delivery.originRateLimits} as {@code OriginRateLimits.check} made them */
    public CircuitsResource(JobStore store, JobArchive archive, boolean enabledByDefault,
                            Map<String, Rate> originRates) {
        this.store = store;
        this.archive = archive;
        this.originRates = new TreeMap<>(originRates);
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
     *   <li>200 OK: {@code {enabled, kept, items, nextCursor, originRateLimits}}; {@code nextCursor} absent on the
     *       last page</li>
     *   <li>400 Bad Request: a {@code limit} outside 1 to 1000, or a {@code cursor} this service did not give</li>
     * </ul>
     */
    @GET
    @Timed
    @ExceptionMetered
    public CircuitView.Circuits list(@Context SecurityContext caller, @QueryParam("limit") Integer limit,
                                     @QueryParam("cursor") String cursor) {
        int pageSize = Paging.limit(limit);
        String after = Paging.after(cursor);
        if (circuits == null && originRates.isEmpty()) {
            return new CircuitView.Circuits(enabledByDefault, false, List.of(), null, List.of());
        }
        Scope scope = Scope.of(caller);
        // a tenant sees the origins its own jobs use, with the held count of its own jobs
        Predicate<OriginCircuit> used = scope.isOperator() ? c -> true
                : TenantOrigins.of(scope, store, circuits, archive, System.currentTimeMillis());
        List<CircuitView.OriginRateLimit> limits = originRates.entrySet().stream()
                .filter(e -> used.test(OriginCircuit.closed(e.getKey())))
                .map(e -> new CircuitView.OriginRateLimit(e.getKey(), e.getValue().perSecond(), e.getValue().burst()))
                .toList();
        if (circuits == null) {
            return new CircuitView.Circuits(enabledByDefault, false, List.of(), null, limits);
        }
        Paging.Page<OriginCircuit> page = Paging.page(after, pageSize, circuits::circuits, OriginCircuit::origin, used);
        // one store read per listed circuit at most: the page is bounded by limit
        List<CircuitView> items = page.items().stream()
                .map(c -> scope.isOperator() ? CircuitView.of(c, originRates.get(c.origin()))
                        : CircuitView.of(c, originRates.get(c.origin()), TenantHeldJobs.of(scope, circuits, c)))
                .toList();
        return new CircuitView.Circuits(enabledByDefault, true, items, page.nextCursor(), limits);
    }
}
