package io.delayq.service.jobs;

import java.util.List;

/**
 * The body of {@code POST /v1/topics/{topic}/jobs/batch}: up to {@code limits.maxBatchSize} (default 1000) jobs.
 *
 * @param jobs the jobs, each as for a single schedule
 */
public record BatchRequest(List<ScheduleJobRequest> jobs) {
}
