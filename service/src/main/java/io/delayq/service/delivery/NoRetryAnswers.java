package io.delayq.service.delivery;

import io.delayq.core.TopicSettings;

import java.util.List;

/**
 * The callback answers that mean "don't retry" (issue 29): a status among the topic's {@code noRetryStatuses}, or
 * any error answer with {@code Delayq-No-Retry: true}. The job is then dead at once, cause {@code NO_RETRY}, whatever
 * attempts it has left. A 2xx is never one (it is a success), nor is a 429/503 with {@code Retry-After} (a
 * postponement), which {@link CallbackSender} decides first.
 */
final class NoRetryAnswers {
    private NoRetryAnswers() {
    }

    static boolean endsJob(TopicSettings settings, int status, CallbackClient.Answer answer) {
        return answer.saysNoRetry() || listed(settings, status);
    }

    /** Why, for the job's last error. */
    static String why(TopicSettings settings, int status, CallbackClient.Answer answer) {
        return answer.saysNoRetry() ? "the receiver said " + CallbackClient.NO_RETRY + ": true"
                : "HTTP " + status + " is one of the topic's noRetryStatuses";
    }

    private static boolean listed(TopicSettings settings, int status) {
        List<Integer> statuses = settings.noRetryStatuses();
        return statuses != null && statuses.contains(status);
    }
}
