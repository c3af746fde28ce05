package io.delayq.service.consumer;

import io.delayq.core.JobRules;
import jakarta.annotation.security.RolesAllowed;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.sse.Sse;
import jakarta.ws.rs.sse.SseEventSink;

/**
 * {@code GET /v1/topics/{topic}/events}: a Server-Sent Events stream of the topic's broadcast jobs, role
 * {@code consumer}. Each broadcast is one event {@code event: job}, {@code id: <job id>},
 * {@code data: {"id","topic","runAt","payload"}}; comments ({@code : keep-alive}) keep idle streams open.
 * {@code 422} for an invalid topic name. A client that falls more than a few MiB of events behind is disconnected.
 */
@Path("/v1/topics/{topic}/events")
@RolesAllowed("consumer")
public class EventsResource {
    private final BroadcastHub hub;

    EventsResource(BroadcastHub hub) {
        this.hub = hub;
    }

    @GET
    @Produces(MediaType.SERVER_SENT_EVENTS)
    public void events(@PathParam("topic") String topic, @Context SseEventSink sink, @Context Sse sse,
                       @Context HttpServletRequest request) {
        JobRules.checkTopic(topic);
        hub.subscribe(topic, sink, sse, ClientConnection.of(request)::abort);
    }
}
