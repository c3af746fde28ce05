package io.delayq.service.auth;

/** The roles a token can hold; resources name them in {@code @RolesAllowed}. */
public final class Role {
    /** Schedules, reads, cancels and reschedules jobs; reads topics. */
    public static final String PRODUCER = "producer";
    /** Leases, acks, nacks and extends jobs; subscribes to events; reads topics. */
    public static final String CONSUMER = "consumer";
    /** Changes topic settings; works with dead letters; may do everything a producer may. */
    public static final String ADMIN = "admin";
    /** Reads everything an operator sees (topics, jobs, history, dead letters, operations, audit); changes nothing. */
    public static final String VIEWER = "viewer";

    private Role() {
    }

    public static boolean isKnown(String role) {
        return PRODUCER.equals(role) || CONSUMER.equals(role) || ADMIN.equals(role) || VIEWER.equals(role);
    }
}
