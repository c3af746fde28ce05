package io.delayq.service.history;

import com.codahale.metrics.annotation.Timed;
import io.delayq.core.JobRules;
import io.delayq.core.JobStore;
import io.delayq.core.history.LatenessBuckets;
import io.delayq.core.history.TopicMinute;
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

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What an operator reads about a topic beyond its counters: the per-minute history (kept in the store for 7 days and
 * shared by every instance), the due forecast, and the leases in flight. Read-only: every role but consumer-only
 * tokens. (POST on {@code /leases} is the consumers' lease call, in {@code LeaseResource}.)
 */
@Path("/v1/topics/{topic}")
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed({Role.PRODUCER, Role.ADMIN, Role.VIEWER})
public class TopicInsightsResource {
    static final int MAX_HISTORY_MINUTES = (int) (TopicMinute.RETENTION_MS / TopicMinute.MINUTE_MS);
    static final int MAX_FORECAST_MINUTES = 1_440;
    static final int MAX_LEASES = 1_000;

    private final JobStore store;

    public TopicInsightsResource(JobStore store) {
        this.store = store;
    }

    /**
     * The last {@code minutes} minutes (1 to 10080, default 60), the current one included, every minute present.
     *
     * <ul>
     *   <li>200 OK</li>
     *   <li>422: a bad topic or a minutes value out of range</li>
     * </ul>
     */
    @GET
    @Path("history")
    @Timed
    public TopicHistoryView history(@PathParam("topic") String topic, @QueryParam("minutes") Integer minutes) {
        JobRules.checkClientTopic(topic);
        int n = RangeParams.inRange("minutes", minutes, 60, 1, MAX_HISTORY_MINUTES);
        long to = store.now() / TopicMinute.MINUTE_MS * TopicMinute.MINUTE_MS + TopicMinute.MINUTE_MS;
        long from = to - n * TopicMinute.MINUTE_MS;
        Map<Long, TopicMinute> stored = new HashMap<>();
        for (TopicMinute m : store.history(topic, from, to)) {
            stored.put(m.minute(), m);
        }
        List<MinuteView> out = new ArrayList<>(n);
        for (long minute = from; minute < to; minute += TopicMinute.MINUTE_MS) {
            TopicMinute m = stored.getOrDefault(minute, TopicMinute.empty(topic, minute));
            long p50 = LatenessBuckets.percentile(m.lateness(), 50);
            long p99 = LatenessBuckets.percentile(m.lateness(), 99);
            out.add(new MinuteView(JobView.time(minute), m.enqueued(), m.delivered(), m.failed(), m.dead(),
                    m.expired(), m.noRetry(), p50 < 0 ? null : p50, p99 < 0 ? null : p99));
        }
        return new TopicHistoryView(topic, out);
    }

    /**
     * Jobs falling due in each of the next {@code minutes} minutes (1 to 1440, default 60), from now by the store's
     * clock.
     */
    @GET
    @Path("forecast")
    @Timed
    public ForecastView forecast(@PathParam("topic") String topic, @QueryParam("minutes") Integer minutes) {
        JobRules.checkClientTopic(topic);
        int n = RangeParams.inRange("minutes", minutes, 60, 1, MAX_FORECAST_MINUTES);
        long now = store.now();
        long[] counts = store.dueForecast(topic, now, TopicMinute.MINUTE_MS, n);
        return new ForecastView(topic, JobView.time(now), TopicMinute.MINUTE_MS / 1_000, counts);
    }

    /** The leases in flight, earliest deadline first, at most {@code limit} (1 to 1000, default 100). */
    @GET
    @Path("leases")
    @Timed
    public LeasesInFlight leases(@PathParam("topic") String topic, @QueryParam("limit") Integer limit) {
        JobRules.checkClientTopic(topic);
        int n = RangeParams.inRange("limit", limit, 100, 1, MAX_LEASES);
        return new LeasesInFlight(store.leasesInFlight(topic, n).stream()
                .map(l -> new LeaseInFlightView(l.id(), l.lane().name(), l.attempt(), JobView.time(l.deadlineMs())))
                .toList());
    }
}
