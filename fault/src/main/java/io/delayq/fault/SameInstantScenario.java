package io.delayq.fault;

import java.util.Map;

/**
 * Many jobs due at the same instant: all scheduled ahead through the batch endpoint (four producers) with one
 * {@code runAt}, far enough ahead that the enqueue is done first; then the service has to deliver them all, none
 * before the instant, each once.
 *
 * <p>Recovery: from the instant until the last job got through (the drain). The notes give the drain rate and the
 * lateness (first delivery − runAt).
 */
final class SameInstantScenario implements Scenario {
    private static final String TOPIC = "same-instant";
    private final SuiteOptions options;

    SameInstantScenario(SuiteOptions options) {
        this.options = options;
    }

    @Override
    public String name() {
        return "same-instant";
    }

    @Override
    public String description() {
        return String.format("%,d jobs due at the same instant", options.sameInstantJobs());
    }

    @Override
    public ScenarioResult run(FaultRig rig) throws Exception {
        Ledger ledger = new Ledger();
        Receiver receiver = rig.receiver(Receiver.Behaviour.OK);
        int n = options.sameInstantJobs();
        // 5 s, plus the enqueue at a pessimistic 4,000 jobs/s (a busy 2-core machine)
        long startedAt = System.currentTimeMillis();
        long instant = startedAt + 5_000 + n / 4;
        BatchLoader.load(rig.api, ledger, TOPIC, n, 4,
                i -> JobSpec.delivered("i" + i, instant, receiver.url(TOPIC), ""));
        long enqueuedAt = System.currentTimeMillis();
        boolean settled = Tally.await(Math.max(instant, enqueuedAt) + options.settleSeconds() * 1000L + n / 500,
                () -> Tally.allDelivered(ledger, rig.deliveries));
        Thread.sleep(2_000);
        Tally tally = Tally.of(ledger, rig.deliveries, Map.of(), options.earlyToleranceMs());
        long last = Tally.lastFirstDelivery(ledger, rig.deliveries, TOPIC);
        long[] late = Tally.lateness(ledger, rig.deliveries, TOPIC);
        double drainSeconds = last < 0 ? Double.NaN : Math.max(1, last - instant) / 1000.0;
        String notes = String.format("enqueued at %,.0f jobs/s%s; drained at %,.0f jobs/s; lateness p50 %.0f /"
                        + " p99 %.0f / max %.0f ms%s",
                n / Math.max(0.001, (enqueuedAt - startedAt) / 1000.0),
                enqueuedAt > instant ? String.format(" (done %.1f s AFTER the instant)", (enqueuedAt - instant) / 1000.0) : "",
                tally.reached() / drainSeconds, Tally.percentile(late, 0.5), Tally.percentile(late, 0.99),
                Tally.percentile(late, 1.0), settled ? "" : "; NOT SETTLED");
        return new ScenarioResult(name(), tally, ledger.serverErrors(), drainSeconds, notes, null);
    }
}
