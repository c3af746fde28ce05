package io.delayq.client;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.JsonNode;

import java.util.List;

/**
 * A recurring schedule as the service shows it: its definition (callback header values masked), its next fire times
 * (in its zone, RFC 3339) and its last fires, newest first.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record ScheduleInfo(String topic, String name, String cron, String timeZone, String startAt, String endAt,
                           JsonNode job, String misfire, String misfireAfter, boolean paused, String createdAt,
                           String updatedAt, List<String> nextFireTimes, List<Fire> lastFires) {
    public ScheduleInfo {
        nextFireTimes = nextFireTimes == null ? List.of() : List.copyOf(nextFireTimes);
        lastFires = lastFires == null ? List.of() : List.copyOf(lastFires);
    }

    /**
     * One fire.
     *
     * @param kind  {@code scheduled}, {@code catch_up}, {@code skipped} or {@code run_now}
     * @param jobId the job it enqueued; {@code null} when none
     */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Fire(String fireAt, String kind, String jobId, int missed, String recordedAt) {
    }
}
