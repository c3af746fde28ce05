package io.delayq.service.schedules;

/** The answer of {@code POST …/schedules/{name}/run}: the job enqueued now (its id starts with ':'). */
public record RunNowResult(String topic, String jobId) {
}
