package io.delayq.bench.ceiling;

import com.fasterxml.jackson.databind.JsonNode;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import redis.clients.jedis.UnifiedJedis;

import java.util.List;
import java.util.Map;

/**
 * W4's single-job POST at its cheapest: Jackson reads the body into {@link Job} (Jersey's JSON provider, the
 * service's ObjectMapper defaults), one {@code SET ceiling:<topic>:<id> <payload>} stores it, and the record goes back
 * as JSON with 201, as delayq answers a new job with the job.
 */
@Path("/v1/topics")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
public final class CeilingResource {
    /** The fields of delayq's {@code ScheduleJobRequest}, plainly typed. */
    public record Job(String id, Long delayMs, String runAt, JsonNode payload, Callback callback, Integer maxAttempts,
                      JsonNode backoff, String timeout, Boolean broadcast) {
    }

    /** A callback as delayq takes it. */
    public record Callback(String url, Map<String, String> headers) {
    }

    private final UnifiedJedis redis;

    CeilingResource(UnifiedJedis redis) {
        this.redis = redis;
    }

    @POST
    @Path("{topic}/jobs")
    public Response schedule(@PathParam("topic") String topic, Job job) {
        if (job == null || job.id() == null || job.payload() == null) {
            return Response.status(422).build();
        }
        redis.set("ceiling:" + topic + ":" + job.id(), job.payload().toString());
        return Response.status(201).entity(job).build();
    }

    /** Answers 200 once the server is up (the bench's readiness probe, the same path as the service's). */
    @GET
    public List<String> topics() {
        return List.of();
    }
}
