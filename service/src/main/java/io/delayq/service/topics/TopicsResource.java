package io.delayq.service.topics;

import com.codahale.metrics.annotation.ExceptionMetered;
import com.codahale.metrics.annotation.Timed;
import io.delayq.core.JobStore;
import io.delayq.core.TopicSettings;
import io.delayq.core.TopicStats;
import io.delayq.core.archive.TopicScope;
import io.delayq.service.auth.Role;
import io.delayq.service.auth.Scope;
import io.delayq.service.http.Paging;
import io.delayq.service.tenants.TenantTopics;
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

/**
 * The list of topics with their counters and settings, a page at a time; any role may read it. One topic is
 * {@link TopicResource}.
 */
@Path("/v1/topics")
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed({Role.PRODUCER, Role.CONSUMER, Role.ADMIN, Role.VIEWER})
public class TopicsResource {
    private final JobStore store;
    private final TenantTopics tenantTopics;

    public TopicsResource(JobStore store) {
        this.store = store;
        this.tenantTopics = new TenantTopics(store);
    }

    /**
     * One page of topics by name, with their counters and settings (issue 26, finding 12): three store calls per page
     * (the names, the counters of the page, the settings of the page), whatever the number of topics on it; for a
     * tenant's token (or an operator's view as tenant), its tenant's topics only, the names read by its patterns
     * ({@link TenantTopics#page}: one range of the store's index by name per pattern, not the names of every team).
     *
     * <ul>
     *   <li>200 OK: {@code {items, nextCursor}}; {@code nextCursor} absent on the last page</li>
     *   <li>400 Bad Request: a {@code limit} outside 1 to 1000, or a {@code cursor} this service did not give</li>
     * </ul>
     */
    @GET
    @Timed
    @ExceptionMetered
    public TopicList list(@Context SecurityContext caller, @QueryParam("limit") Integer limit,
                          @QueryParam("cursor") String cursor) {
        int pageSize = Paging.limit(limit);
        String after = Paging.after(cursor);
        Scope scope = Scope.of(caller);
        TopicScope visible = scope.archiveScope(); // every topic, or the tenant's patterns (none: a tenant deleted)
        Paging.Page<String> page = Paging.page(after, pageSize, (from, n) -> tenantTopics.page(visible, from, n),
                t -> t, scope::canSee);
        Map<String, TopicStats> stats = store.stats(page.items());
        Map<String, TopicSettings> settings = store.settings(page.items());
        return new TopicList(page.items().stream().map(t -> TopicView.of(stats.get(t),
                TopicSettingsView.of(settings.getOrDefault(t, TopicSettings.empty())))).toList(), page.nextCursor());
    }
}
