package io.delayq.fault;

import java.util.List;
import java.util.Map;

/**
 * A receiver that hangs past the callback timeout beside a fast topic. The slow topic's jobs (1 s timeout, retried
 * every second, up to 100 attempts) go to a receiver that holds every request until it is released; meanwhile a
 * fast topic's jobs fall due at a steady rate to a receiver that answers at once. The slow topic may take at most
 * its per-topic share of the service's callback slots, so the fast topic stays on time; after the release every
 * slow job must still arrive.
 *
 * <p>Recovery: from the release until the last slow job got through. The notes give the fast topic's lateness
 * (first delivery − runAt) while the receiver hung.
 */
final class HangingReceiverScenario implements Scenario {
    private static final String SLOW = "hang-slow";
    private static final String FAST = "hang-fast";
    private final SuiteOptions options;

    HangingReceiverScenario(SuiteOptions options) {
        this.options = options;
    }

    @Override
    public String name() {
        return "hanging-receiver";
    }

    @Override
    public String description() {
        return "a receiver hanging for " + options.hangSeconds() + " s past the 1 s callback timeout ("
                + options.hangJobs() + " jobs) beside a fast topic (" + options.fastPerSecond() + " jobs/s)";
    }

    @Override
    public ScenarioResult run(FaultRig rig) throws Exception {
        Ledger ledger = new Ledger();
        Receiver hanging = rig.receiver(Receiver.Behaviour.HANG);
        Receiver fast = rig.receiver(Receiver.Behaviour.OK);
        long hangMs = options.hangSeconds() * 1000L;
        int fastJobs = (int) (options.fastPerSecond() * hangMs / 1000);
        // due once both topics are scheduled (at a pessimistic 4,000 jobs/s), so fast jobs are not late by our doing
        long start = System.currentTimeMillis() + 2_000 + fastJobs / 4;
        int slow = options.hangJobs();
        BatchLoader.load(rig.api, ledger, SLOW, slow, 1, i -> JobSpec.delivered("s" + i, start + 1_000L * i / slow,
                hanging.url(SLOW), "\"timeout\":\"1s\",\"maxAttempts\":100,"
                        + "\"backoff\":{\"type\":\"schedule\",\"delays\":[\"1s\"]}"));
        BatchLoader.load(rig.api, ledger, FAST, fastJobs, 1, i -> JobSpec.delivered("f" + i,
                start + 500 + hangMs * i / fastJobs, fast.url(FAST), ""));

        Thread.sleep(Math.max(0, start + hangMs - System.currentTimeMillis()));
        hanging.release();
        long releasedAt = System.currentTimeMillis();
        boolean settled = Tally.await(Math.max(ledger.lastRunAt(), releasedAt) + options.settleSeconds() * 1000L,
                () -> Tally.allDelivered(ledger, rig.deliveries));
        Thread.sleep(2_000);
        Tally tally = Tally.of(ledger, rig.deliveries, Map.of(), options.earlyToleranceMs());
        long lastSlow = Tally.lastFirstDelivery(ledger, rig.deliveries, SLOW);
        long[] late = Tally.lateness(ledger, rig.deliveries, FAST);
        List<Delivery> slowDeliveries = rig.deliveries.ofTopics(SLOW::equals);
        long hung = slowDeliveries.stream().filter(d -> d.answer() == Delivery.Answer.HUNG).count();
        int lastAttempt = slowDeliveries.stream().filter(d -> d.answer() == Delivery.Answer.OK)
                .mapToInt(Delivery::attempt).max().orElse(0);
        String notes = String.format("fast topic lateness p50 %.0f / p99 %.0f / max %.0f ms while %d attempts hung;"
                        + " slow jobs delivered at attempt %d at most; %d slow + %d fast jobs%s",
                Tally.percentile(late, 0.5), Tally.percentile(late, 0.99), Tally.percentile(late, 1.0), hung,
                lastAttempt, slow, fastJobs, settled ? "" : "; NOT SETTLED");
        return new ScenarioResult(name(), tally, ledger.serverErrors(),
                lastSlow < 0 ? Double.NaN : Math.max(0, lastSlow - releasedAt) / 1000.0, notes, null);
    }
}
