package io.delayq.fault;

import java.util.Set;

/** When the service is back after a fault: enqueueing and delivering again. */
final class Recovery {
    private Recovery() {
    }

    /**
     * Waits up to 60 s until the service has, since {@code fromMs}, both acknowledged an enqueue of the ledger and
     * delivered a callback of the topics.
     *
     * @return when the later of the two happened, or -1
     */
    static long enqueuingAndDelivering(FaultRig rig, Ledger ledger, Set<String> topics, long fromMs)
            throws InterruptedException {
        long[] back = {-1};
        Tally.await(System.currentTimeMillis() + 60_000, () -> {
            long ack = ledger.firstAckFrom(fromMs);
            long delivery = rig.deliveries.firstArrivalFrom(fromMs, d -> topics.contains(d.topic()));
            if (ack >= 0 && delivery >= 0) {
                back[0] = Math.max(ack, delivery);
                return true;
            }
            return false;
        });
        return back[0];
    }
}
