package io.delayq.fault;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code kill -9} of Redis ({@code appendonly yes, appendfsync always}) under the running service, down for a while,
 * then started again on the same append-only file; jobs are due before, during and after each outage and a trickle
 * producer keeps sending (its 5xx and refused requests while Redis is down are counted, not acknowledged). Every job
 * Redis acknowledged before the kill is in its fsynced file, so none may be lost; the service itself is not
 * restarted and must find Redis again on its own.
 *
 * <p>Recovery, per outage: from Redis answering again until the service has both acknowledged an enqueue and
 * delivered a callback (worst outage in the table).
 */
final class RedisKillScenario implements Scenario {
    private static final String BULK = "redis-bulk";
    private static final String TRICKLE = "redis-trickle";
    private static final String OPTIONS = "\"timeout\":\"2s\"";
    private final SuiteOptions options;

    RedisKillScenario(SuiteOptions options) {
        this.options = options;
    }

    @Override
    public String name() {
        return "kill-redis";
    }

    @Override
    public String description() {
        return "kill -9 of Redis (appendfsync always) x" + options.redisKills() + ", down " + options.redisDownSeconds()
                + " s each, restarted on its append-only file; " + options.redisJobs() + " jobs due across (+ a trickle)";
    }

    @Override
    public ScenarioResult run(FaultRig rig) throws Exception {
        Ledger ledger = new Ledger();
        Receiver receiver = rig.receiver(Receiver.Behaviour.OK);
        long first = System.currentTimeMillis() + 1_000;
        long span = options.redisKills() * (options.redisDownSeconds() + 6) * 1000L;
        int n = options.redisJobs();
        BatchLoader.load(rig.api, ledger, BULK, n, 2,
                i -> JobSpec.delivered("b" + i, first + span * i / n, receiver.url(BULK), OPTIONS));

        List<Double> recoveries = new ArrayList<>();
        try (TrickleProducer trickle = new TrickleProducer(rig.api, ledger, TRICKLE, receiver.url(TRICKLE), OPTIONS, 20)) {
            for (int k = 0; k < options.redisKills(); k++) {
                Thread.sleep(2_000);
                rig.killRedis();
                Thread.sleep(options.redisDownSeconds() * 1000L);
                rig.startRedis();
                long upAt = System.currentTimeMillis();
                long back = Recovery.enqueuingAndDelivering(rig, ledger, Set.of(BULK, TRICKLE), upAt);
                recoveries.add(back < 0 ? Double.NaN : (back - upAt) / 1000.0);
            }
            Thread.sleep(2_000);
        }
        boolean settled = Tally.await(Math.max(ledger.lastRunAt(), System.currentTimeMillis())
                + options.settleSeconds() * 1000L, () -> Tally.allDelivered(ledger, rig.deliveries));
        Thread.sleep(2_000);
        Tally tally = Tally.of(ledger, rig.deliveries, Map.of(), options.earlyToleranceMs());
        double worst = recoveries.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
        String notes = String.format("%d outage(s) of %d s; recovery mean %.1f s (Redis up → enqueue and delivery"
                        + " again); %d requests unanswered; service %s%s",
                options.redisKills(), options.redisDownSeconds(),
                recoveries.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN),
                ledger.noAnswerCount(), rig.service.isAlive() ? "stayed up" : "DIED: " + rig.service.exitDescription(),
                settled ? "" : "; NOT SETTLED");
        return new ScenarioResult(name(), tally, ledger.serverErrors(), worst, notes, null);
    }
}
