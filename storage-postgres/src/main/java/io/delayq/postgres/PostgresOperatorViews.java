package io.delayq.postgres;

import io.delayq.core.LeaseInFlight;
import io.delayq.core.history.LatenessBuckets;
import io.delayq.core.history.OperatorViewArguments;
import io.delayq.core.history.TopicMinute;
import io.delayq.postgres.Rows.ForecastBucket;

import java.util.List;

/**
 * What an operator's dashboard reads of a topic: the due forecast, the leases in flight, and the per-minute history
 * in {@code delayq_topic_history} (V7), which the delivery engine adds to.
 */
final class PostgresOperatorViews {
    private final JobQueries queries;

    PostgresOperatorViews(JobQueries queries) {
        this.queries = queries;
    }

    /** One statement: a range scan of the due index per lane, bounded by the window, grouped into buckets. */
    long[] dueForecast(String topic, long fromMs, long bucketMs, int buckets) {
        long toMs = OperatorViewArguments.forecastEnd(topic, fromMs, bucketMs, buckets);
        List<ForecastBucket> rows = PostgresCalls.call("count the due forecast",
                () -> queries.dueForecast(topic, fromMs, toMs, bucketMs));
        long[] forecast = new long[buckets];
        for (ForecastBucket row : rows) {
            forecast[row.bucket()] = row.jobs();
        }
        return forecast;
    }

    List<LeaseInFlight> leasesInFlight(String topic, int limit) {
        OperatorViewArguments.checkLeaseLimit(topic, limit);
        return PostgresCalls.call("list the leases in flight", () -> queries.leasesInFlight(topic, limit));
    }

    /**
     * One statement for the whole call: every minute's counts added to its row ({@code add_history.sql}),
     * repeats merged and rows sorted first, so that concurrent instances lock rows in one order.
     */
    void addHistory(List<TopicMinute> increments) {
        List<TopicMinute> minutes = OperatorViewArguments.mergedIncrements(increments);
        if (minutes.isEmpty()) {
            return;
        }
        int n = minutes.size();
        String[] topics = new String[n];
        Long[] starts = new Long[n];
        Long[] enqueued = new Long[n];
        Long[] delivered = new Long[n];
        Long[] failed = new Long[n];
        Long[] dead = new Long[n];
        Long[] expired = new Long[n];
        Long[] noRetry = new Long[n];
        Long[] lateness = new Long[n * LatenessBuckets.COUNT];
        for (int i = 0; i < n; i++) {
            TopicMinute m = minutes.get(i);
            topics[i] = m.topic();
            starts[i] = m.minute();
            enqueued[i] = m.enqueued();
            delivered[i] = m.delivered();
            failed[i] = m.failed();
            dead[i] = m.dead();
            expired[i] = m.expired();
            noRetry[i] = m.noRetry();
            for (int b = 0; b < LatenessBuckets.COUNT; b++) {
                lateness[i * LatenessBuckets.COUNT + b] = m.lateness()[b];
            }
        }
        PostgresCalls.call("add to the topic history", () -> {
            queries.addHistory(topics, starts, enqueued, delivered, failed, dead, expired, noRetry, lateness,
                    LatenessBuckets.COUNT);
            return null;
        });
    }

    List<TopicMinute> history(String topic, long fromMinute, long toMinute) {
        long first = OperatorViewArguments.firstMinute(topic, fromMinute, toMinute);
        List<TopicMinute> rows = PostgresCalls.call("read the topic history",
                () -> queries.history(topic, first, toMinute));
        return rows.stream().filter(m -> !m.isEmpty()).toList();
    }
}
