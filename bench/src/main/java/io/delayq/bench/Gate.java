package io.delayq.bench;

import java.util.concurrent.CountDownLatch;

/** Holds connected consumers back until the producers are done (W3), or lets them run at once. */
public final class Gate {
    private final CountDownLatch latch;

    private Gate(boolean open) {
        latch = new CountDownLatch(open ? 0 : 1);
    }

    public static Gate open() {
        return new Gate(true);
    }

    public static Gate closed() {
        return new Gate(false);
    }

    public void openNow() {
        latch.countDown();
    }

    public boolean isOpen() {
        return latch.getCount() == 0;
    }

    public void await() throws InterruptedException {
        latch.await();
    }
}
