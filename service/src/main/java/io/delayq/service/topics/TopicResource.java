package io.delayq.service.topics;

import com.codahale.metrics.annotation.ExceptionMetered;
import com.codahale.metrics.annotation.Timed;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.delayq.core.JobRules;
import io.delayq.core.JobStore;
import io.delayq.core.StoreException;
import io.delayq.core.StoreStatus;
import io.delayq.core.TopicSettings;
import io.delayq.service.api.HeaderValues;
import io.delayq.service.audit.AuditTrail;
import io.delayq.service.auth.Role;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;

import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * One topic: its counters and its settings (default callback, retry policy, timeout, pause). Any role may read;
 * changing settings needs the admin role. Shares its root path with the other per-topic resources, see
 * {@link JobsResource}.
 */
@Path("/v1/topics/{topic}")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
@RolesAllowed({Role.PRODUCER, Role.CONSUMER, Role.ADMIN, Role.VIEWER})
public class TopicResource {
    private final JobStore store;
    private final TopicSettingsUpdate update;
    private final Consumer<String> settingsChanged;
    private final AuditTrail audit;

    /**
     * @param update          reads and checks a PUT body (a topic's backoff is held to the limits a job's is)
     * @param settingsChanged told after each change, so that this instance's scheduler resolves its next jobs against
     *                        the new settings and its delivery engine re-reads them and looks for due jobs now (a
     *                        resumed topic, a new default callback) rather than later
     * @param audit           where each change is recorded (who, what)
     */
    public TopicResource(JobStore store, TopicSettingsUpdate update, Consumer<String> settingsChanged,
                         AuditTrail audit) {
        this.store = store;
        this.update = update;
        this.settingsChanged = settingsChanged;
        this.audit = audit;
    }

    /**
     * One topic's counters and settings; a topic that never had a job shows zeros.
     *
     * <ul>
     *   <li>200 OK</li>
     *   <li>422 Unprocessable Content: the topic name is not valid</li>
     * </ul>
     */
    @GET
    @Timed
    @ExceptionMetered
    public TopicView get(@PathParam("topic") String topic) {
        return view(JobRules.checkClientTopic(topic));
    }

    /**
     * Changes a topic's settings. Fields left out keep their value; a field sent as {@code null} goes back to the
     * service default. {@code {"paused": true}} pauses delivery, {@code {"paused": false}} resumes it.
     *
     * <ul>
     *   <li>200 OK: the topic with its new settings</li>
     *   <li>400 Bad Request: the body is not JSON of the right shape (unknown field, wrong type)</li>
     *   <li>403 Forbidden: the token lacks the admin role</li>
     *   <li>422 Unprocessable Content: a value breaks a rule (callback URL, maxAttempts, backoff, timeout)</li>
     * </ul>
     */
    @PUT
    @Timed
    @ExceptionMetered
    @RolesAllowed(Role.ADMIN)
    public TopicView put(@Context SecurityContext caller, @PathParam("topic") String topic, ObjectNode body)
            throws JsonProcessingException {
        JobRules.checkClientTopic(topic);
        if (body == null) {
            throw new IllegalArgumentException("a JSON object is required, e.g. {\"paused\": false}");
        }
        UnaryOperator<TopicSettings> change = update.change(body);
        // Applied by the store to the settings as they are when it writes: a concurrent PUT of other fields survives.
        store.updateSettings(topic, change);
        settingsChanged.accept(topic);
        boolean pauseOnly = body.size() == 1 && body.has("paused") && body.get("paused").isBoolean();
        String action = !pauseOnly ? "topic.settings" : body.get("paused").booleanValue() ? "topic.pause"
                : "topic.resume";
        String detail = HeaderValues.maskedJson(body.toString()); // header values are write-only, here too
        audit.record(caller, topic, action, topic, 0,
                detail.length() <= 500 ? detail : detail.substring(0, 500) + "…");
        return view(topic);
    }

    private TopicView view(String topic) {
        return TopicView.of(store.stats(topic), TopicSettingsView.of(store.settings(topic)));
    }

    /**
     * Forgets a topic without scheduled or leased jobs (issue 26, finding 12): its settings and its entry in the topic
     * list go; its finished jobs and counters stay while the store keeps them, and a new job registers it again.
     *
     * <ul>
     *   <li>204 No Content: forgotten (also when it was not listed)</li>
     *   <li>403 Forbidden: the token lacks the admin role</li>
     *   <li>409 Conflict: it has scheduled or leased jobs; nothing changed</li>
     *   <li>422 Unprocessable Content: the topic name is not valid</li>
     * </ul>
     */
    @DELETE
    @Timed
    @ExceptionMetered
    @RolesAllowed(Role.ADMIN)
    public Response delete(@Context SecurityContext caller, @PathParam("topic") String topic) {
        String name = JobRules.checkClientTopic(topic);
        if (!store.deleteTopic(name)) {
            throw new StoreException(StoreStatus.CONFLICT, "topic " + name + " has scheduled or leased jobs; cancel"
                    + " them or let them finish, then delete it");
        }
        settingsChanged.accept(name);
        audit.record(caller, "topic.delete", name, 1, null);
        return Response.noContent().build();
    }
}
