package io.delayq.core;

/**
 * Notifications a store sends to every service instance. Called on the store's own notification thread: return
 * quickly and hand work off.
 */
public interface StoreListener {
    /**
     * A topic's earliest run time moved earlier (a job was scheduled or rescheduled ahead of the others).
     *
     * @param topic the topic
     * @param dueAt the new earliest run time, epoch ms by the store's clock
     */
    void onWake(String topic, long dueAt);

    /** A broadcast job fell due and is to be sent to every event subscriber of its topic on every instance. */
    default void onBroadcast(Job job) {
    }
}
