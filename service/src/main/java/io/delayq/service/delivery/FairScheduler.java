package io.delayq.service.delivery;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Who reserves next, and how many: the engine's delivery capacity — its concurrency slots ({@code maxConcurrency} in
 * all, {@code maxConcurrencyPerTopic} per topic) and its turns at the store (the timer threads that reserve) — shared
 * between tenants by weight, then evenly between a tenant's topics. The operators' topics together are one more
 * tenant.
 *
 * <p>A topic with jobs that may be due is <i>ready</i> ({@link #ready}): its timer fired, a wake-up or a lease
 * expiry came, its last reserve came back full, or a slot it waited for came free. Ready topics wait in their
 * tenant's queue, round robin. A turn picks the tenant holding the fewest slots for its weight
 * among those with a ready topic (ties: the one served longest ago), takes the first topic of its queue, and grants it
 * slots: at most the reserve batch, the free slots and the topic's own free slots, and — while other tenants wait too
 * — no more than brings the tenant up to its weighted share of all slots. The topic reserves that many jobs (one
 * store call), gives back what it did not get, and goes to the back of its tenant's queue if its batch came back full.
 * So:
 * <ul>
 *   <li>under contention, slots in flight converge to the weights' proportions (max-min fair: a tenant that wants
 *       less than its share keeps what it wants, the rest is shared by the others), whatever each tenant's receivers'
 *       speed — a slow receiver holds its tenant's slots, not another tenant's;</li>
 *   <li>a tenant whose topic falls due while another drains a backlog is served at the next turn, not after the
 *       backlog: every turn is one reserve, and a turn that found a full batch goes back through the timer threads'
 *       queue, behind timers that fired meanwhile;</li>
 *   <li>it is work-conserving: a tenant with nothing due leaves its share to the others.</li>
 * </ul>
 * Only a callback that ends frees a slot, so a tenant that arrives when every slot is held waits for the first
 * callback in flight to end (a fraction of a millisecond to a receiver answering at once), then gets the freed slots
 * before the busy tenant does.
 *
 * <p>Turns run on the timer threads, at most {@link #DRAINS} at once and at most {@link #TURNS_PER_TENANT} of one
 * tenant, so that one is always free for the others: a turn cannot be cut short, and on a loaded machine a turn
 * that sends a hundred callbacks can take tens of milliseconds. A timer that fires runs the turn on its own
 * thread when one is free (no hand-off between the due time and the store call); a turn that leaves work behind
 * submits the next one to the timer threads' queue. When slots are freed and topics wait for them, a turn is run a
 * moment later ({@value #REFILL_DELAY_MICROS} µs), so that one reserve refills the slots of several finished
 * callbacks.
 *
 * <p>Every instance applies the weights to what it delivers. All instances see every due job through the store, so
 * the fleet as a whole shares by the same weights.
 */
final class FairScheduler {
    static final long REFILL_DELAY_MICROS = 1_000;
    /** Turns at once: the timer threads. */
    static final int DRAINS = TopicTimers.THREADS;
    /**
     * Turns of one tenant at once: one fewer than there are, so that a turn is always free for another tenant whose
     * topic falls due while one drains a backlog (a turn cannot be cut short: it is a store call and its sends).
     */
    static final int TURNS_PER_TENANT = DRAINS - 1;

    /** Reserves what a turn grants: one store call for up to {@code slots} jobs. */
    interface Pump {
        /**
         * @return how many jobs were reserved (and dispatched); {@code slots} means the batch came back full, so more
         * may be due
         */
        int pump(TopicState ts, int slots);
    }

    /** A tenant as the scheduler sees it: its weight, the slots its topics hold, its ready topics. */
    static final class Share {
        final String tenant;
        int weight;
        /** Slots held by its topics: granted to a turn in progress, or a callback in flight. */
        int held;
        /** Its turns in progress. */
        int turnsRunning;
        /** Turn number of its last turn: ties go to the share served longest ago. */
        long lastTurn;
        long turns;
        long reserved;
        final ArrayDeque<TopicState> ready = new ArrayDeque<>();

        Share(String tenant, int weight) {
            this.tenant = tenant;
            this.weight = weight;
        }
    }

    /** What {@link #snapshot} tells per tenant: weight, slots held, topics ready, turns and jobs reserved so far. */
    record ShareView(String tenant, int weight, int held, int ready, long turns, long reserved) {
    }

    private final int maxConcurrency;
    private final int maxPerTopic;
    private final int batch;
    private final TopicTimers timers;
    private final Pump pump;
    private final Object lock = new Object();
    // Guarded by lock, like the scheduling fields of TopicState.
    private final Map<String, Share> shares = new HashMap<>();
    /** Shares with a ready topic, in the order they became so. */
    private final Set<Share> backlogged = new LinkedHashSet<>();
    private int free;
    private int drains;
    private long turn;
    private boolean refillScheduled;

    /**
     * @param batch most slots one turn grants (the reserve batch)
     * @param pump  reserves and dispatches on the calling thread (a timer thread)
     */
    FairScheduler(int maxConcurrency, int maxPerTopic, int batch, TopicTimers timers, Pump pump) {
        this.maxConcurrency = maxConcurrency;
        this.maxPerTopic = maxPerTopic;
        this.batch = batch;
        this.timers = timers;
        this.pump = pump;
        this.free = maxConcurrency;
    }

    /**
     * The topic may have due jobs: it waits for a turn; from any thread. A topic whose turn is in progress gets
     * another one after it.
     */
    void ready(TopicState ts) {
        synchronized (lock) {
            readyLocked(ts);
        }
        kick();
    }

    /**
     * As {@link #ready}, on a timer thread: when a turn is free, it runs here and now (for this topic, unless another
     * tenant's comes first), with no hand-off between a due timer and the store call.
     */
    void readyHere(TopicState ts) {
        synchronized (lock) {
            readyLocked(ts);
            if (drains >= DRAINS || backlogged.isEmpty() || free == 0) {
                return;
            }
            drains++;
        }
        runTurn();
    }

    /** Gives back {@code n} slots of the topic (its callbacks ended), and lets waiting topics have them. */
    void release(TopicState ts, int n) {
        boolean refill = false;
        synchronized (lock) {
            ts.held -= n;
            ts.share.held -= n;
            free += n;
            if (ts.atTopicLimit && ts.held < maxPerTopic) {
                ts.atTopicLimit = false;
                readyLocked(ts);
            }
            if (!backlogged.isEmpty() && drains < DRAINS && !refillScheduled) {
                refillScheduled = true;
                refill = true;
            }
        }
        if (refill && timers.later(this::refill, REFILL_DELAY_MICROS) == null) {
            synchronized (lock) {
                refillScheduled = false; // stopping
            }
        }
    }

    /** Per tenant: weight, slots held, topics ready, turns and jobs reserved since the start. */
    List<ShareView> snapshot() {
        synchronized (lock) {
            List<ShareView> out = new ArrayList<>(shares.size());
            for (Share s : shares.values()) {
                out.add(new ShareView(s.tenant, s.weight, s.held, s.ready.size(), s.turns, s.reserved));
            }
            return out;
        }
    }

    /** Tenants with a topic waiting for its turn now. */
    int tenantsWaiting() {
        synchronized (lock) {
            return backlogged.size();
        }
    }

    /** Free slots now. */
    int freeSlots() {
        synchronized (lock) {
            return free;
        }
    }

    /**
     * Which share a topic's turns count against: its owner's, whose weight is updated as the owner's changes. A topic
     * moves to another owner's share only while it holds no slot, so that every slot is given back where it was taken.
     */
    void assign(TopicState ts, String tenant, int weight) {
        synchronized (lock) {
            Share current = ts.share;
            if (current != null && current.tenant.equals(tenant)) {
                current.weight = weight;
                return;
            }
            if (current != null && (ts.held > 0 || ts.queued || ts.pumping)) {
                return; // moved at a later assignment, once the topic holds nothing
            }
            Share share = shares.computeIfAbsent(tenant, t -> new Share(t, weight));
            share.weight = weight;
            ts.share = share;
        }
    }

    private void refill() {
        synchronized (lock) {
            refillScheduled = false;
        }
        kick();
    }

    /** Submits a turn to the timer threads when one is free and there is something to do. */
    private void kick() {
        synchronized (lock) {
            if (drains >= DRAINS || backlogged.isEmpty() || free == 0) {
                return;
            }
            drains++;
        }
        if (!timers.now(this::runTurn)) {
            synchronized (lock) {
                drains--; // stopping
            }
        }
    }

    private void runTurn() {
        TopicState ts;
        int granted;
        synchronized (lock) {
            ts = pickLocked();
            if (ts == null) {
                drains--;
                return;
            }
            granted = grantLocked(ts);
        }
        int got = 0;
        try {
            got = pump.pump(ts, granted);
        } finally {
            synchronized (lock) {
                int unused = granted - Math.max(0, Math.min(got, granted));
                ts.held -= unused;
                ts.share.held -= unused;
                ts.share.reserved += Math.max(0, got);
                ts.share.turnsRunning--;
                free += unused;
                ts.pumping = false;
                if (got >= granted || ts.again) {
                    ts.again = false;
                    readyLocked(ts); // a full batch: more may be due; to the back of its tenant's queue
                }
                drains--;
            }
            kick();
        }
    }

    /** Queues the topic for a turn unless it is queued, in a turn (then it goes again after it) or at its limit. */
    private void readyLocked(TopicState ts) {
        if (ts.pumping) {
            ts.again = true;
            return;
        }
        if (ts.queued) {
            return;
        }
        if (ts.held >= maxPerTopic) {
            ts.atTopicLimit = true; // readied again when one of its slots is given back
            return;
        }
        ts.queued = true;
        ts.share.ready.addLast(ts);
        backlogged.add(ts.share);
    }

    /**
     * The first ready topic of the share holding the fewest slots for its weight, among those with a turn to spare;
     * null when none or no free slot.
     */
    private TopicState pickLocked() {
        if (free == 0 || backlogged.isEmpty()) {
            return null;
        }
        Share best = null;
        for (Share s : backlogged) {
            if (s.turnsRunning >= TURNS_PER_TENANT) {
                continue;
            }
            if (best == null) {
                best = s;
                continue;
            }
            long mine = (long) s.held * best.weight;
            long theirs = (long) best.held * s.weight;
            if (mine < theirs || (mine == theirs && s.lastTurn < best.lastTurn)) {
                best = s;
            }
        }
        if (best == null) {
            return null;
        }
        TopicState ts = best.ready.pollFirst();
        if (best.ready.isEmpty()) {
            backlogged.remove(best);
        }
        ts.queued = false;
        best.lastTurn = ++turn;
        best.turns++;
        best.turnsRunning++;
        return ts;
    }

    /** Slots for the topic's turn, taken now: see the class comment for the bounds. */
    private int grantLocked(TopicState ts) {
        Share share = ts.share;
        int grant = Math.min(batch, Math.min(free, maxPerTopic - ts.held));
        if (!backlogged.isEmpty()) {
            // Others wait too: up to the share's weighted part of all slots, at least one.
            long weights = share.weight;
            for (Share s : backlogged) {
                if (s != share) {
                    weights += s.weight;
                }
            }
            int fair = (int) Math.ceil((double) maxConcurrency * share.weight / weights);
            grant = Math.min(grant, Math.max(1, fair - share.held));
        }
        grant = Math.max(1, grant);
        ts.pumping = true;
        ts.held += grant;
        share.held += grant;
        free -= grant;
        return grant;
    }
}
