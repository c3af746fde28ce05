package io.delayq.service.delivery;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/** Named daemon threads, so that a thread dump says which part of the engine a thread belongs to. */
final class Threads {
    private Threads() {
    }

    static ThreadFactory named(String prefix, boolean single) {
        AtomicInteger count = new AtomicInteger();
        return runnable -> {
            Thread thread = new Thread(runnable, single ? prefix : prefix + "-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }
}
