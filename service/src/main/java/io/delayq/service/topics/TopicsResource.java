package io.delayq.service.topics;

import com.codahale.metrics.annotation.ExceptionMetered;
import com.codahale.metrics.annotation.Timed;
import io.delayq.core.JobStore;
import io.delayq.service.auth.Role;
import io.delayq.service.auth.Scope;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.SecurityContext;

import java.util.Comparator;

/**
 * The list of topics with their counters and settings; any role may read it. One topic is {@link TopicResource}.
 */
@Path("/v1/topics")
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed({Role.PRODUCER, Role.CONSUMER, Role.ADMIN, Role.VIEWER})
public class TopicsResource {
    private final JobStore store;

    public TopicsResource(JobStore store) {
        this.store = store;
    }

    /**
     * Every topic that has had a job, with its counters and settings, sorted by name; for a tenant's token, those of
     * its tenant only.
     *
     * <ul><li>200 OK</li></ul>
     */
    @GET
    @Timed
    @ExceptionMetered
    public TopicList list(@Context SecurityContext caller) {
        return new TopicList(Scope.of(caller).visible(store.topics()).stream().sorted(Comparator.naturalOrder())
                .map(this::view).toList());
    }

    private TopicView view(String topic) {
        return TopicView.of(store.stats(topic), TopicSettingsView.of(store.settings(topic)));
    }
}
