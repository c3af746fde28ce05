package io.delayq.service.breaker;

import io.delayq.core.Failure;
import io.delayq.core.breaker.BreakerPolicy;

/**
 * The breaker's word on one attempt, given before it is made ({@link CallbackBreaker#admit}) and handed back with its
 * outcome ({@link CallbackBreaker#answered}): send it (a normal attempt or the origin's probe), or hold the job.
 */
public final class Admission {
    /** Not the breaker's business: the topic has it off, or the store keeps no circuits. */
    static final Admission UNTRACKED = new Admission(null, null, null, false, null);

    final String origin;
    final OriginView view;
    final BreakerPolicy policy;
    final boolean probe;
    private final Failure hold;

    private Admission(String origin, OriginView view, BreakerPolicy policy, boolean probe, Failure hold) {
        this.origin = origin;
        this.view = view;
        this.policy = policy;
        this.probe = probe;
        this.hold = hold;
    }

    static Admission send(OriginView view, BreakerPolicy policy, boolean probe) {
        return new Admission(view.origin, view, policy, probe, null);
    }

    static Admission hold(OriginView view, BreakerPolicy policy, Failure held) {
        return new Admission(view.origin, view, policy, false, held);
    }

    /** Non-null when the job is held: record it with {@code nack(lease, hold())} instead of sending it. */
    public Failure hold() {
        return hold;
    }

    /** Whether this attempt is the probe of an open circuit. */
    public boolean isProbe() {
        return probe;
    }

    boolean tracked() {
        return origin != null && hold == null;
    }
}
