package io.delayq.service.breaker;

import io.delayq.core.JobRef;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The paced release: one slot per 1/rate, a slot kept for the job it was given to, never a queue that restarts. */
class ReleasePacerTest {
    private static final long NOW = 1_700_000_000_000L;

    private static JobRef job(int i) {
        return new JobRef("t", "j" + i);
    }

    @Test
    void jobsDueTogetherGetConsecutiveSlotsAtTheRate() {
        ReleasePacer pacer = new ReleasePacer();
        assertThat(pacer.slot(job(0), NOW, 10)).as("the first goes now").isZero();
        for (int i = 1; i < 5; i++) {
            assertThat(pacer.slot(job(i), NOW, 10)).as("job %d held until its slot", i).isEqualTo(NOW + i * 100L);
        }
        assertThat(pacer.reservedCount()).isEqualTo(4);
    }

    @Test
    void aJobBackAtItsSlotGoesWithoutTakingAnotherAndNewJobsQueueBehind() {
        ReleasePacer pacer = new ReleasePacer();
        pacer.slot(job(0), NOW, 10);
        long slot1 = pacer.slot(job(1), NOW, 10);
        long slot2 = pacer.slot(job(2), NOW, 10);
        assertThat(pacer.slot(job(1), slot1 - 50, 10)).as("back 50 ms early: held again until the same slot")
                .isEqualTo(slot1);
        assertThat(pacer.slot(job(1), slot1, 10)).as("back at its slot").isZero();
        assertThat(pacer.slot(job(3), slot1, 10)).as("a newcomer queues after the last slot given")
                .isEqualTo(slot2 + 100);
        assertThat(pacer.slot(job(2), slot2 + 5, 10)).isZero();
        assertThat(pacer.reservedCount()).as("only job 3's slot is still reserved").isEqualTo(1);
    }

    @Test
    void anIdlePacerLetsTheNextJobGoAtOnce() {
        ReleasePacer pacer = new ReleasePacer();
        assertThat(pacer.slot(job(0), NOW, 20)).isZero();
        assertThat(pacer.slot(job(1), NOW + 50, 20)).as("50 ms later at 20/s: its slot is now").isZero();
        assertThat(pacer.slot(job(2), NOW + 60, 20)).isEqualTo(NOW + 100);
    }
}
