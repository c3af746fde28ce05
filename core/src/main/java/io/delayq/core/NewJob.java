package io.delayq.core;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Objects;
import java.util.TreeMap;

/**
 * A job a producer asks to schedule. Exactly one of {@code delayMs} and {@code runAtMs} is set: a relative delay is
 * turned into a run time by the store's clock, so a producer's skewed clock cannot make a job run early.
 *
 * @param topic       the topic
 * @param id          the producer's idempotency key, or a generated id
 * @param payload     compact JSON text
 * @param delayMs     run this long after the store receives it, or {@code null}
 * @param runAtMs     run at this epoch ms, or {@code null}
 * @param maxAttempts attempts allowed in all (already resolved against the topic's policy)
 * @param backoff     the job's own backoff, or {@code null}
 * @param callback    the job's own callback, or {@code null}
 * @param timeoutMs   the job's own lease length, or {@code null}
 * @param broadcast   send to every event subscriber
 * @param delivery    which lane takes it when due: the push engine (a callback or broadcast) or pulling consumers
 * @param trace       the producer's W3C trace context, carried on to its deliveries, or {@code null}; not part of
 *                    the {@link #fingerprint()}
 * @param onDead      where to send a notice if the job becomes {@link JobState#DEAD} (overrides the topic's
 *                    {@link TopicSettings#onDead()}), or {@code null}
 * @param expiresAtMs the job's own expiry, epoch ms, or {@code null} (its topic's {@code expiresAfter} applies): not
 *                    delivered by then, it is dead with cause {@link DeadCause#EXPIRED}
 */
public record NewJob(
        String topic,
        String id,
        String payload,
        Long delayMs,
        Long runAtMs,
        int maxAttempts,
        Backoff backoff,
        Callback callback,
        Long timeoutMs,
        boolean broadcast,
        Delivery delivery,
        TraceContext trace,
        Callback onDead,
        Long expiresAtMs) {

    public NewJob {
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(payload, "payload");
        if ((delayMs == null) == (runAtMs == null)) {
            throw new IllegalArgumentException("exactly one of delayMs and runAtMs must be set");
        }
        Objects.requireNonNull(delivery, "delivery");
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts must be at least 1");
        }
    }

    /** A job without an expiry of its own (the form before expiry existed). */
    public NewJob(String topic, String id, String payload, Long delayMs, Long runAtMs, int maxAttempts, Backoff backoff,
                  Callback callback, Long timeoutMs, boolean broadcast, Delivery delivery, TraceContext trace,
                  Callback onDead) {
        this(topic, id, payload, delayMs, runAtMs, maxAttempts, backoff, callback, timeoutMs, broadcast, delivery, trace,
                onDead, null);
    }

    /** A job without a dead-notice target of its own (the form before dead notices existed). */
    public NewJob(String topic, String id, String payload, Long delayMs, Long runAtMs, int maxAttempts, Backoff backoff,
                  Callback callback, Long timeoutMs, boolean broadcast, Delivery delivery, TraceContext trace) {
        this(topic, id, payload, delayMs, runAtMs, maxAttempts, backoff, callback, timeoutMs, broadcast, delivery, trace,
                null);
    }

    /** A job without a trace context (the form before trace contexts existed). */
    public NewJob(String topic, String id, String payload, Long delayMs, Long runAtMs, int maxAttempts, Backoff backoff,
                  Callback callback, Long timeoutMs, boolean broadcast, Delivery delivery) {
        this(topic, id, payload, delayMs, runAtMs, maxAttempts, backoff, callback, timeoutMs, broadcast, delivery, null,
                null);
    }

    /** A job for pulling consumers, due {@code delayMs} after the store receives it, with default options. */
    public static NewJob delayed(String topic, String id, String payload, long delayMs, int maxAttempts) {
        return new NewJob(topic, id, payload, delayMs, null, maxAttempts, null, null, null, false, Delivery.PULL);
    }

    /** A job for pulling consumers, due at an absolute time, with default options. */
    public static NewJob at(String topic, String id, String payload, long runAtMs, int maxAttempts) {
        return new NewJob(topic, id, payload, null, runAtMs, maxAttempts, null, null, null, false, Delivery.PULL);
    }

    /** The same job for the other lane. */
    public NewJob withDelivery(Delivery lane) {
        return new NewJob(topic, id, payload, delayMs, runAtMs, maxAttempts, backoff, callback, timeoutMs, broadcast, lane,
                trace, onDead, expiresAtMs);
    }

    /** The same job carrying a producer's trace context ({@code null}: none). */
    public NewJob withTrace(TraceContext context) {
        return new NewJob(topic, id, payload, delayMs, runAtMs, maxAttempts, backoff, callback, timeoutMs, broadcast,
                delivery, context, onDead, expiresAtMs);
    }

    /** The same job with its own dead-notice target ({@code null}: the topic's). */
    public NewJob withOnDead(Callback target) {
        return new NewJob(topic, id, payload, delayMs, runAtMs, maxAttempts, backoff, callback, timeoutMs, broadcast,
                delivery, trace, target, expiresAtMs);
    }

    /** The same job with its own expiry, epoch ms ({@code null}: its topic's {@code expiresAfter}, if any). */
    public NewJob withExpiresAt(Long atMs) {
        return new NewJob(topic, id, payload, delayMs, runAtMs, maxAttempts, backoff, callback, timeoutMs, broadcast,
                delivery, trace, onDead, atMs);
    }

    public JobRef ref() {
        return new JobRef(topic, id);
    }

    /**
     * A digest of everything the producer said about this job (its dead-notice target included, but not its trace
     * context: a retried enqueue carries a new span id and is still the same job). Enqueueing the same id again is idempotent when the
     * fingerprints match and a conflict when they differ.
     */
    public String fingerprint() {
        var canonical = new StringBuilder()
                .append(payload).append('\u0000')
                .append(delayMs).append('\u0000')
                .append(runAtMs).append('\u0000')
                .append(maxAttempts).append('\u0000')
                .append(backoff).append('\u0000')
                .append(callback == null ? null : callback.url()).append('\u0000')
                .append(callback == null ? null : new TreeMap<>(callback.headers())).append('\u0000')
                .append(timeoutMs).append('\u0000')
                .append(broadcast).append('\u0000')
                .append(delivery);
        if (onDead != null) {
            // Appended only when set, so that a job without one keeps the fingerprint stores already hold.
            canonical.append('\u0000').append(onDead.url())
                    .append('\u0000').append(new TreeMap<>(onDead.headers()));
        }
        if (expiresAtMs != null) {
            canonical.append("\u0000expires:").append(expiresAtMs); // only when set, as onDead
        }
        // One digest per thread, held by a local class (nothing else of the record changes): a MessageDigest.getInstance
        // per job searched the security providers on every enqueue. digest() resets it for the next use.
        final class Sha256 {
            static final ThreadLocal<MessageDigest> DIGEST = ThreadLocal.withInitial(() -> {
                try {
                    return MessageDigest.getInstance("SHA-256");
                } catch (NoSuchAlgorithmException e) {
                    throw new IllegalStateException("SHA-256 is part of every JRE", e);
                }
            });
        }
        byte[] digest = Sha256.DIGEST.get().digest(canonical.toString().getBytes(StandardCharsets.UTF_8));
        return HexFormat.of().formatHex(digest, 0, 12);
    }
}
