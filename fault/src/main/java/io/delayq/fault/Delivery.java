package io.delayq.fault;

/**
 * One callback as a receiver saw it.
 *
 * @param topic       {@code Delayq-Topic}
 * @param id          {@code Delayq-Id}
 * @param attempt     {@code Delayq-Attempt}
 * @param arrivedAtMs the receiver's clock when the request had arrived (the same host clock as the producers')
 * @param answer      what the receiver did with it
 */
record Delivery(String topic, String id, int attempt, long arrivedAtMs, Answer answer) {

    /** What the receiver answered. */
    enum Answer {
        /** 200 written back: a delivery the service should record as done (unless it dies before it does) */
        OK,
        /** 500: a failed attempt */
        FAILED,
        /** held until the service gave up on it (its timeout) and closed the connection */
        HUNG,
        /**
         * writing the answer failed: the connection was gone (the service killed with the attempt in flight). Usually a
         * kill shows as {@code OK} instead, as the first write after the peer's close succeeds; the receiver did take
         * the job then, so that counts as delivered and the redelivery as a duplicate
         */
        UNANSWERED
    }

    String key() {
        return key(topic, id);
    }

    static String key(String topic, String id) {
        return topic + "/" + id;
    }
}
