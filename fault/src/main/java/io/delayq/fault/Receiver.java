package io.delayq.fault;

import io.delayq.testing.CallbackReceiver;
import io.delayq.testing.CallbackReceiver.Outcome;
import io.delayq.testing.CallbackReceiver.Received;
import io.delayq.testing.CallbackReceiver.Reply;

import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * A callback receiver of the suite: testing's {@link CallbackReceiver} answering as its {@link Behaviour} says, and
 * recording every request carrying a {@code Delayq-Id} in the {@link DeliveryLog} once it knows what became of it.
 * Each receiver is a host:port of its own, as the receivers of different topics are in practice, so a hanging one
 * holds the service's connections to it and no others.
 */
final class Receiver implements AutoCloseable {
    /** How a receiver answers. */
    enum Behaviour {
        /** 200 (after {@link #thinkMs(int)}) */
        OK,
        /** 500 */
        FAIL,
        /** holds each request until {@link #release()}, then 200; after the release, 200 at once */
        HANG
    }

    private final Behaviour behaviour;
    private final CallbackReceiver receiver;
    private final CountDownLatch released = new CountDownLatch(1);
    private volatile int thinkMs;

    Receiver(Behaviour behaviour, DeliveryLog log) {
        this.behaviour = behaviour;
        // the log is the record: the receiver keeps nothing of its own over a run of 100,000 jobs
        this.receiver = new CallbackReceiver(request -> { });
        receiver.answer(this::reply);
        receiver.onAnswered((request, reply, outcome) -> record(log, request, reply, outcome));
    }

    /** The callback URL for a topic's jobs. */
    String url(String topic) {
        return receiver.url("/" + behaviour.name().toLowerCase(Locale.ROOT) + "/" + topic);
    }

    /** OK receivers: wait this long before answering, so that attempts are in flight when the service is killed. */
    void thinkMs(int ms) {
        this.thinkMs = ms;
    }

    /** HANG receivers: answer the held requests, and every later one at once. */
    void release() {
        released.countDown();
    }

    boolean isReleased() {
        return released.getCount() == 0;
    }

    private Reply reply(Received request) {
        return switch (behaviour) {
            case OK -> new Reply(200, thinkMs, Map.of());
            case FAIL -> Reply.status(500);
            // Usually the service's timeout ends the attempt first and it closes the connection: hung. A request
            // still open at the release is answered 200 within its timeout: delivered, late.
            case HANG -> Reply.heldUntil(released);
        };
    }

    private static void record(DeliveryLog log, Received request, Reply reply, Outcome outcome) {
        if (request.id() == null) {
            return;
        }
        Delivery.Answer answer = switch (outcome) {
            case ANSWERED -> reply.status() == 200 ? Delivery.Answer.OK : Delivery.Answer.FAILED;
            case ABANDONED -> Delivery.Answer.HUNG;
            case LOST -> Delivery.Answer.UNANSWERED;
        };
        log.record(new Delivery(request.topic(), request.id(), Math.max(0, request.attempt()), request.receivedAtMs(),
                answer));
    }

    @Override
    public void close() {
        release();
        receiver.close();
    }
}
