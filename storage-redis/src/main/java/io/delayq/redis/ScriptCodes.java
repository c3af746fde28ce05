package io.delayq.redis;

import io.delayq.core.StoreStatus;

/** The one place where the scripts' numeric answers become {@link StoreStatus} values. */
final class ScriptCodes {
    static final long OK = 1;
    /** nack: the job died (it is OK to the caller). */
    static final long OK_DEAD = 2;
    /** nack: the job died of its expiry instead of being put back (it is OK to the caller). */
    static final long OK_EXPIRED = 3;
    /** enqueue: the id exists with the same fingerprint. */
    static final long EXISTS = 0;
    static final long NOT_FOUND = -1;
    static final long CONFLICT = -2;
    static final long STALE_LEASE = -3;
    static final long NOT_IN_STATE = -4;

    private ScriptCodes() {
    }

    static StoreStatus status(long code) {
        if (code == OK || code == OK_DEAD || code == OK_EXPIRED || code == EXISTS) {
            return StoreStatus.OK;
        }
        if (code == NOT_FOUND) {
            return StoreStatus.NOT_FOUND;
        }
        if (code == CONFLICT) {
            return StoreStatus.CONFLICT;
        }
        if (code == STALE_LEASE) {
            return StoreStatus.STALE_LEASE;
        }
        if (code == NOT_IN_STATE) {
            return StoreStatus.NOT_IN_STATE;
        }
        throw new IllegalStateException("a delayq script answered the unknown code " + code);
    }
}
