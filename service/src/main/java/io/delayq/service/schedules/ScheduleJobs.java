package io.delayq.service.schedules;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delayq.core.NewJob;
import io.delayq.core.StoreException;
import io.delayq.core.StoreStatus;
import io.delayq.core.schedule.ScheduleRecord;
import io.delayq.service.jobs.JobScheduler;
import io.delayq.service.jobs.ScheduleJobRequest;

/**
 * Between a schedule's stored definition and its jobs: reads the definition ({@link CheckedSchedule}), writes it, and
 * builds the job of a fire from its template through the {@link JobScheduler}, so a schedule's job is held to the
 * rules and topic defaults of any job.
 */
public final class ScheduleJobs {
    private final ObjectMapper mapper;
    private final JobScheduler scheduler;

    public ScheduleJobs(ObjectMapper mapper, JobScheduler scheduler) {
        this.mapper = mapper;
        this.scheduler = scheduler;
    }

    CheckedSchedule read(ScheduleRecord record) {
        try {
            return CheckedSchedule.of(mapper.readValue(record.definition(), ScheduleRequest.class));
        } catch (JsonProcessingException | RuntimeException e) {
            throw new StoreException(StoreStatus.UNAVAILABLE, "schedule '" + record.name() + "' of topic "
                    + record.topic() + " has a definition that cannot be read: " + e.getMessage());
        }
    }

    String write(CheckedSchedule schedule) {
        try {
            return mapper.writeValueAsString(schedule.definition());
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a schedule's definition is plain JSON", e);
        }
    }

    /**
     * The job of a fire: its template as a job, with {@code id} and due at {@code runAtMs} ({@code null}: now).
     *
     * @throws IllegalArgumentException naming the template's field at fault, prefixed {@code job.}
     */
    NewJob job(String topic, CheckedSchedule schedule, String id, Long runAtMs) {
        JobTemplate t = schedule.definition().job();
        ScheduleJobRequest request = new ScheduleJobRequest(null, 0L, null, t.payload(), t.callback(),
                t.maxAttempts(), t.backoff(), t.timeout(), t.broadcast(), t.onDead(), null);
        try {
            return scheduler.scheduleJob(topic, request, id, runAtMs);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("job." + e.getMessage(), e);
        }
    }

    void enqueued(String topic) {
        scheduler.scheduleEnqueued(topic);
    }
}
