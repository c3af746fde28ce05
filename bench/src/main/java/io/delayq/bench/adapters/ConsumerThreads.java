package io.delayq.bench.adapters;

import io.delayq.bench.Gate;

import java.util.ArrayList;
import java.util.List;

/** A fixed set of consumer threads running one loop body until closed. */
final class ConsumerThreads implements AutoCloseable {
    /** One pass of a consumer loop. */
    @FunctionalInterface
    interface Body {
        void once() throws Exception;
    }

    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean running = true;

    ConsumerThreads(String name, int concurrency, Gate gate, Body body) {
        for (int i = 0; i < concurrency; i++) {
            Thread t = new Thread(() -> {
                try {
                    gate.await();
                    while (running) {
                        try {
                            body.once();
                        } catch (InterruptedException e) {
                            return;
                        } catch (Exception e) {
                            if (running) {
                                System.err.println(name + " consumer error: " + e);
                                Thread.sleep(10);
                            }
                        }
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, name + "-consumer-" + i);
            t.setDaemon(true);
            threads.add(t);
            t.start();
        }
    }

    boolean running() {
        return running;
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        for (Thread t : threads) {
            t.interrupt();
        }
        for (Thread t : threads) {
            t.join(5_000);
        }
    }
}
