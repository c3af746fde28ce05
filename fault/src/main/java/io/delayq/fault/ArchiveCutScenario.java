package io.delayq.fault;

import com.fasterxml.jackson.databind.JsonNode;

import java.io.IOException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * The archive unreachable (its proxy cut: connections reset, connects refused) while jobs die: jobs whose callback
 * always answers 500, with one attempt each, fall due all through the cut, so each dies while its dead letter cannot
 * be written. They must wait in the store's outbox and all reach the archive once it is back, each once. Beside them a
 * live topic (a trickle producer, a receiver that answers 200) shows that enqueueing and delivery do not need the
 * archive: its 5xx count is the cut's cost to producers.
 *
 * <p>Recovery: from the archive being reachable again until every dead letter of the cut is listed by the admin API.
 */
final class ArchiveCutScenario implements Scenario {
    private static final String DYING = "archive-dying";
    private static final String LIVE = "archive-live";
    private final SuiteOptions options;

    ArchiveCutScenario(SuiteOptions options) {
        this.options = options;
    }

    @Override
    public String name() {
        return "archive-cut";
    }

    @Override
    public String description() {
        return "archive unreachable for " + options.archiveCutSeconds() + " s while " + options.dyingJobs()
                + " jobs die (callback 500, maxAttempts 1), beside a live topic";
    }

    @Override
    public ScenarioResult run(FaultRig rig) throws Exception {
        Ledger ledger = new Ledger();
        Receiver failing = rig.receiver(Receiver.Behaviour.FAIL);
        Receiver live = rig.receiver(Receiver.Behaviour.OK);
        long cutMs = options.archiveCutSeconds() * 1000L;
        long cutAt = System.currentTimeMillis() + 3_000; // after the jobs are scheduled (noted when it is not)
        int n = options.dyingJobs();
        // due from 0.5 s into the cut until 1 s before its end: every one dies while the archive is away
        long span = Math.max(1, cutMs - 1_500);
        BatchLoader.load(rig.api, ledger, DYING, n, 1, i -> new JobSpec("d" + i, cutAt + 500 + span * i / n,
                failing.url(DYING), "\"maxAttempts\":1,\"timeout\":\"2s\"", JobSpec.End.DEAD_LETTER));

        long late;
        boolean sawUnhealthy = false;
        long backlogPeak = 0;
        long healedAt;
        try (TrickleProducer trickle = new TrickleProducer(rig.api, ledger, LIVE, live.url(LIVE), "", 20)) {
            Thread.sleep(Math.max(0, cutAt - System.currentTimeMillis()));
            late = System.currentTimeMillis() - cutAt;
            rig.archiveProxy.cut();
            long healAt = System.currentTimeMillis() + cutMs;
            while (System.currentTimeMillis() < healAt) {
                sawUnhealthy |= Boolean.FALSE.equals(rig.api.healthy("archiver"));
                backlogPeak = Math.max(backlogPeak, backlog(rig));
                Thread.sleep(Math.min(2_000, Math.max(0, healAt - System.currentTimeMillis())));
            }
            rig.archiveProxy.heal();
            healedAt = System.currentTimeMillis();
            backlogPeak = Math.max(backlogPeak, backlog(rig));
            Thread.sleep(2_000);
        }

        Map<String, Map<String, Integer>> letters = new HashMap<>();
        long deadline = healedAt + options.settleSeconds() * 1000L;
        boolean archived = Tally.await(deadline, 500, () -> {
            letters.put(DYING, deadLetters(rig));
            return letters.get(DYING).keySet().containsAll(ids(ledger));
        });
        long archivedAt = System.currentTimeMillis();
        boolean delivered = Tally.await(deadline, () -> Tally.allDelivered(ledger, rig.deliveries));
        Thread.sleep(2_000);
        letters.put(DYING, deadLetters(rig)); // again: a letter written twice would show up now
        Tally tally = Tally.of(ledger, rig.deliveries, letters, options.earlyToleranceMs());
        String notes = String.format("%d dead letters due during the cut, %d live jobs beside; archiver health"
                        + " check unhealthy during the cut: %s; outbox backlog peak %d; %d requests unanswered%s",
                ledger.endingIn(JobSpec.End.DEAD_LETTER).size(), ledger.endingIn(JobSpec.End.DELIVERED).size(),
                sawUnhealthy ? "yes" : "NO", backlogPeak, ledger.noAnswerCount(),
                (late > 400 ? String.format("; the cut began %.1f s late (slow scheduling)", late / 1000.0) : "")
                        + (archived && delivered ? "" : "; NOT SETTLED"));
        return new ScenarioResult(name(), tally, ledger.serverErrors(),
                archived ? (archivedAt - healedAt) / 1000.0 : Double.NaN, notes, null);
    }

    private static Set<String> ids(Ledger ledger) {
        Set<String> ids = new HashSet<>();
        for (Ledger.Acked a : ledger.endingIn(JobSpec.End.DEAD_LETTER)) {
            ids.add(a.job().id());
        }
        return ids;
    }

    private static Map<String, Integer> deadLetters(FaultRig rig) {
        try {
            return rig.api.deadLetters(DYING);
        } catch (IOException e) {
            return Map.of(); // the archive not answering yet
        }
    }

    /** The {@code delayq.archive.backlog} gauge: finished jobs waiting in the store's outbox. */
    private static long backlog(FaultRig rig) {
        JsonNode metrics = rig.api.metrics();
        return metrics == null ? 0 : metrics.path("gauges").path("delayq.archive.backlog").path("value").asLong(0);
    }
}
