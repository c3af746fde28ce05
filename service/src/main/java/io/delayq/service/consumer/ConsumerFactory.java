package io.delayq.service.consumer;

import com.fasterxml.jackson.annotation.JsonProperty;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;

/**
 * The {@code consumer:} block of the configuration: what one instance holds open for consumers.
 *
 * <table>
 *   <caption>consumer settings</caption>
 *   <tr><th>Name</th><th>Default</th><th>Description</th></tr>
 *   <tr><td>{@code maxEventStreams}</td><td>1000</td><td>Event streams ({@code GET …/events}) open at once on this
 *       instance; one more is refused with 429 and {@code Retry-After}.</td></tr>
 *   <tr><td>{@code maxParkedLeaseRequests}</td><td>1000</td><td>Long polls ({@code POST …/leases} with
 *       {@code waitMs}) waiting at once on this instance; one more that would wait is refused with 429 and
 *       {@code Retry-After} (one that finds jobs due is answered).</td></tr>
 *   <tr><td>{@code eventStreamWriters}</td><td>16</td><td>Threads writing events to streams; a stream whose client
 *       reads slowly holds one while it writes, the others wait their turn.</td></tr>
 * </table>
 */
public class ConsumerFactory {
    @Min(1)
    @Max(1_000_000)
    private int maxEventStreams = 1_000;

    @Min(1)
    @Max(1_000_000)
    private int maxParkedLeaseRequests = 1_000;

    @Min(1)
    @Max(1_000)
    private int eventStreamWriters = 16;

    @JsonProperty
    public int getMaxEventStreams() {
        return maxEventStreams;
    }

    @JsonProperty
    public void setMaxEventStreams(int maxEventStreams) {
        this.maxEventStreams = maxEventStreams;
    }

    @JsonProperty
    public int getMaxParkedLeaseRequests() {
        return maxParkedLeaseRequests;
    }

    @JsonProperty
    public void setMaxParkedLeaseRequests(int maxParkedLeaseRequests) {
        this.maxParkedLeaseRequests = maxParkedLeaseRequests;
    }

    @JsonProperty
    public int getEventStreamWriters() {
        return eventStreamWriters;
    }

    @JsonProperty
    public void setEventStreamWriters(int eventStreamWriters) {
        this.eventStreamWriters = eventStreamWriters;
    }
}
