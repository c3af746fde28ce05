package io.delayq.fault;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/**
 * {@code kill -9} of the service, again and again, while it delivers: jobs are due all through the kills (and a
 * trickle producer keeps adding jobs due within a second), the receiver takes 5 ms per callback so that attempts are
 * in flight at every kill, and after each kill a new JVM starts on the same Redis. Jobs have a 2 s timeout, so leases
 * held by a killed JVM come back quickly.
 *
 * <p>Recovery, per kill: from the kill until the new JVM has both acknowledged an enqueue and delivered a callback
 * (the table shows the worst kill; the notes the mean).
 */
final class ServiceKillScenario implements Scenario {
    private static final String BULK = "kill-bulk";
    private static final String TRICKLE = "kill-trickle";
    private static final String OPTIONS = "\"timeout\":\"2s\"";
    private final SuiteOptions options;

    ServiceKillScenario(SuiteOptions options) {
        this.options = options;
    }

    @Override
    public String name() {
        return "kill-service";
    }

    @Override
    public String description() {
        return "kill -9 of the service x" + options.serviceKills() + " during push delivery of "
                + options.killJobs() + " jobs (+ a trickle of single POSTs), restarted each time";
    }

    @Override
    public ScenarioResult run(FaultRig rig) throws Exception {
        Ledger ledger = new Ledger();
        Receiver receiver = rig.receiver(Receiver.Behaviour.OK);
        receiver.thinkMs(5);
        // jobs due across the whole series of kills: each cycle is a restart plus ~2 s of uptime
        long cycleMs = rig.lastStartMs() + 2_000;
        long first = System.currentTimeMillis() + 1_000;
        long span = options.serviceKills() * cycleMs;
        int n = options.killJobs();
        BatchLoader.load(rig.api, ledger, BULK, n, 2,
                i -> JobSpec.delivered("b" + i, first + span * i / n, receiver.url(BULK), OPTIONS));

        Random random = new Random(options.seed());
        List<Double> recoveries = new ArrayList<>();
        List<Long> restarts = new ArrayList<>();
        try (TrickleProducer trickle = new TrickleProducer(rig.api, ledger, TRICKLE, receiver.url(TRICKLE), OPTIONS, 20)) {
            for (int k = 0; k < options.serviceKills(); k++) {
                Thread.sleep(500 + random.nextInt(2_500)); // up for a while: deliveries in flight
                long killedAt = System.currentTimeMillis();
                rig.service.kill();
                long goneAt = System.currentTimeMillis();
                restarts.add(rig.startService());
                // nothing the killed JVM sent can arrive after it is gone: what arrives now is the new JVM's
                long back = Recovery.enqueuingAndDelivering(rig, ledger, Set.of(BULK, TRICKLE), goneAt);
                recoveries.add(back < 0 ? Double.NaN : (back - killedAt) / 1000.0);
            }
        }
        boolean settled = Tally.await(Math.max(ledger.lastRunAt(), System.currentTimeMillis())
                + options.settleSeconds() * 1000L, () -> Tally.allDelivered(ledger, rig.deliveries));
        Thread.sleep(2_000); // repeats of attempts cut off by the last kill may still be on their way
        Tally tally = Tally.of(ledger, rig.deliveries, Map.of(), options.earlyToleranceMs());
        double worst = recoveries.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
        String notes = String.format("%d kills; restart-to-ready mean %.1f s; recovery mean %.1f s; %d POSTs"
                        + " unanswered while down (%d of those jobs delivered anyway)%s",
                options.serviceKills(), restarts.stream().mapToLong(Long::longValue).average().orElse(0) / 1000,
                recoveries.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN),
                ledger.noAnswerCount(), tally.unacknowledgedDelivered(), settled ? "" : "; NOT SETTLED");
        return new ScenarioResult(name(), tally, ledger.serverErrors(), worst, notes, null);
    }
}
