package io.delayq.bench;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What consumers received, per job id: when first (consumer's {@code currentTimeMillis()}), and how often. Producers
 * write each job's intended due time into {@link #due}.
 */
public final class Receipts implements Receiver {
    private final int n;
    final long[] due;
    private final long[] firstAt;
    private final AtomicIntegerArray count;
    private final AtomicInteger distinct = new AtomicInteger();
    private final AtomicLong total = new AtomicLong();
    private final AtomicLong lastAt = new AtomicLong();
    private final CountDownLatch all = new CountDownLatch(1);

    public Receipts(int n) {
        this.n = n;
        this.due = new long[n];
        this.firstAt = new long[n];
        this.count = new AtomicIntegerArray(n);
    }

    @Override
    public void received(int id) {
        long now = System.currentTimeMillis();
        total.incrementAndGet();
        if (id < 0 || id >= n) {
            return; // a job from another run cannot happen after FLUSHALL; ignore rather than crash a consumer
        }
        if (count.incrementAndGet(id) == 1) {
            firstAt[id] = now;
            lastAt.accumulateAndGet(now, Math::max);
            if (distinct.incrementAndGet() == n) {
                all.countDown();
            }
        }
    }

    /** Waits until every job was received at least once, or the timeout. @return whether all arrived */
    public boolean awaitAll(long timeoutMs) throws InterruptedException {
        return all.await(Math.max(0, timeoutMs), TimeUnit.MILLISECONDS);
    }

    public int size() {
        return n;
    }

    public int distinct() {
        return distinct.get();
    }

    public long lastAt() {
        return lastAt.get();
    }

    public int lost() {
        return n - distinct.get();
    }

    /** Jobs received more than once. */
    public int duplicated() {
        int d = 0;
        for (int i = 0; i < n; i++) {
            if (count.get(i) > 1) {
                d++;
            }
        }
        return d;
    }

    /** Lateness of every received job, ms: first receipt − intended due time. */
    public long[] lateness() {
        long[] out = new long[distinct.get()];
        int k = 0;
        for (int i = 0; i < n && k < out.length; i++) {
            if (count.get(i) > 0) {
                out[k++] = firstAt[i] - due[i];
            }
        }
        return k == out.length ? out : java.util.Arrays.copyOf(out, k);
    }

    /** Job {@code id}'s lateness, ms (first receipt − intended due time), or {@link Long#MIN_VALUE} if not received. */
    public long latenessOf(int id) {
        return count.get(id) > 0 ? firstAt[id] - due[id] : Long.MIN_VALUE;
    }

    /** Jobs received before their intended due time by more than {@code slackMs} (should be none). */
    public int early(long slackMs) {
        int e = 0;
        for (int i = 0; i < n; i++) {
            if (count.get(i) > 0 && firstAt[i] < due[i] - slackMs) {
                e++;
            }
        }
        return e;
    }
}
