package io.delayq.fault;

import java.util.Random;

/**
 * A producer that keeps scheduling single jobs (about {@code perSecond}, each due 0–1 s after it is sent) for as long
 * as it runs, so that there is always something being enqueued and delivered when a fault strikes, and so that the
 * answers during the fault (refused, 503, acknowledged) are counted.
 */
final class TrickleProducer implements AutoCloseable {
    private final ServiceApi api;
    private final Ledger ledger;
    private final String topic;
    private final String callbackUrl;
    private final String options;
    private final long intervalMs;
    private final Thread thread;
    private volatile boolean running = true;
    private int sent;

    TrickleProducer(ServiceApi api, Ledger ledger, String topic, String callbackUrl, String options, int perSecond) {
        this.api = api;
        this.ledger = ledger;
        this.topic = topic;
        this.callbackUrl = callbackUrl;
        this.options = options;
        this.intervalMs = Math.max(1, 1000 / perSecond);
        this.thread = new Thread(this::run, "fault-trickle-" + topic);
        thread.setDaemon(true);
        thread.start();
    }

    private void run() {
        Random random = new Random(topic.hashCode());
        while (running) {
            long next = System.currentTimeMillis() + intervalMs;
            JobSpec job = JobSpec.delivered("t" + sent++, System.currentTimeMillis() + random.nextInt(1000),
                    callbackUrl, options);
            api.schedule(ledger, topic, job);
            long wait = next - System.currentTimeMillis();
            if (wait > 0) {
                try {
                    Thread.sleep(wait);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }

    /** Stops after the request in progress. */
    @Override
    public void close() throws InterruptedException {
        running = false;
        thread.join(70_000);
    }
}
