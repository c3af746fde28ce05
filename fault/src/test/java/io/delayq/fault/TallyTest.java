package io.delayq.fault;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The figures count exactly what they say, job by job. */
class TallyTest {
    private static final long DUE = 1_000_000;
    private final Ledger ledger = new Ledger();
    private final DeliveryLog log = new DeliveryLog();

    @Test
    void anAcknowledgedJobWithoutADeliveryAnsweredOkIsLost() {
        ack("a");
        ack("b");
        ack("c");
        deliver("a", DUE + 3, Delivery.Answer.OK);
        deliver("b", DUE + 3, Delivery.Answer.UNANSWERED); // cut off by a kill: not delivered
        deliver("c", DUE + 3, Delivery.Answer.HUNG);

        Tally t = Tally.of(ledger, log, Map.of(), 5);

        assertThat(t.acknowledged()).isEqualTo(3);
        assertThat(t.reached()).isEqualTo(1);
        assertThat(t.lost()).isEqualTo(2);
        assertThat(t.lostSample()).containsExactly("t/b", "t/c");
        assertThat(Tally.allDelivered(ledger, log)).isFalse();
    }

    @Test
    void deliveriesAfterTheFirstOkAreDuplicatesAndRetriesBeforeItAreNot() {
        ack("a");
        deliver("a", DUE + 1, Delivery.Answer.FAILED);
        deliver("a", DUE + 2, Delivery.Answer.HUNG);
        deliver("a", DUE + 3, Delivery.Answer.OK);
        deliver("a", DUE + 4, Delivery.Answer.OK);
        deliver("a", DUE + 5, Delivery.Answer.UNANSWERED);

        Tally t = Tally.of(ledger, log, Map.of(), 5);

        assertThat(t.lost()).isZero();
        assertThat(t.duplicated()).isEqualTo(2);
    }

    @Test
    void aDeliveryBeforeRunAtBeyondTheToleranceIsEarly() {
        ack("within");
        ack("before");
        deliver("within", DUE - 5, Delivery.Answer.OK);
        deliver("before", DUE - 6, Delivery.Answer.OK);

        assertThat(Tally.of(ledger, log, Map.of(), 5).early()).isEqualTo(1);
    }

    @Test
    void aDyingJobIsReachedByItsDeadLetterAndADoubleLetterIsADuplicate() {
        ledger.acknowledged("t", new JobSpec("d1", DUE, "http://x", "", JobSpec.End.DEAD_LETTER));
        ledger.acknowledged("t", new JobSpec("d2", DUE, "http://x", "", JobSpec.End.DEAD_LETTER));
        ledger.acknowledged("t", new JobSpec("d3", DUE, "http://x", "", JobSpec.End.DEAD_LETTER));

        Tally t = Tally.of(ledger, log, Map.of("t", Map.of("d1", 1, "d2", 2)), 5);

        assertThat(t.reached()).isEqualTo(2);
        assertThat(t.lost()).isEqualTo(1);
        assertThat(t.lostSample()).containsExactly("t/d3");
        assertThat(t.duplicated()).isEqualTo(1);
    }

    @Test
    void onlyAcknowledgedJobsAreOwedAndUnacknowledgedOnesThatArriveAreCountedApart() {
        JobSpec refused = JobSpec.delivered("r", DUE, "http://x", "");
        JobSpec unanswered = JobSpec.delivered("u", DUE, "http://x", "");
        ledger.unacknowledged("t", refused);
        ledger.unacknowledged("t", unanswered);
        deliver("u", DUE + 1, Delivery.Answer.OK); // stored, but its answer never came back

        Tally t = Tally.of(ledger, log, Map.of(), 5);

        assertThat(t.acknowledged()).isZero();
        assertThat(t.lost()).isZero();
        assertThat(t.unacknowledgedDelivered()).isEqualTo(1);
    }

    @Test
    void latenessIsFirstOkDeliveryMinusRunAt() {
        ack("a");
        ack("b");
        deliver("a", DUE + 30, Delivery.Answer.FAILED);
        deliver("a", DUE + 40, Delivery.Answer.OK);
        deliver("b", DUE + 10, Delivery.Answer.OK);

        assertThat(Tally.lateness(ledger, log, "t")).containsExactly(10, 40);
        assertThat(Tally.lastFirstDelivery(ledger, log, "t")).isEqualTo(DUE + 40);
        assertThat(Tally.percentile(new long[]{1, 2, 3, 4}, 0.5)).isEqualTo(2);
        assertThat(Tally.percentile(new long[]{1, 2, 3, 4}, 1.0)).isEqualTo(4);
    }

    private void ack(String id) {
        ledger.acknowledged("t", JobSpec.delivered(id, DUE, "http://x", ""));
    }

    private void deliver(String id, long at, Delivery.Answer answer) {
        log.record(new Delivery("t", id, 1, at, answer));
    }
}
