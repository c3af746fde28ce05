package io.delayq.mongo;

import com.mongodb.MongoException;
import io.delayq.core.StoreException;
import io.delayq.core.StoreStatus;

import java.util.function.Supplier;

/** How the archive's calls (dead letters and the operator log alike) turn MongoDB's errors into the SPI's. */
final class MongoCalls {
    private MongoCalls() {
    }

    /** Runs a call; a MongoDB error is {@link StoreStatus#UNAVAILABLE}. */
    static <T> T read(String what, Supplier<T> action) {
        try {
            return action.get();
        } catch (MongoException e) {
            throw new StoreException(StoreStatus.UNAVAILABLE, "the archive could not " + what + ": " + e.getMessage(), e);
        }
    }

    /**
     * Runs a change, then {@code afterWrite} (the embedded server's commit to disk): a change is acknowledged only once
     * it is durable.
     */
    static <T> T mutate(String what, Runnable afterWrite, Supplier<T> action) {
        T result = read(what, action);
        try {
            afterWrite.run();
        } catch (RuntimeException e) {
            throw new StoreException(StoreStatus.UNAVAILABLE, "the archive accepted the change but could not make it"
                    + " durable (" + what + "): " + e.getMessage(), e);
        }
        return result;
    }
}
