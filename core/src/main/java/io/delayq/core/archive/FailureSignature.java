package io.delayq.core.archive;

import io.delayq.core.Attempt;
import io.delayq.core.Delivery;
import io.delayq.core.Job;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Why a job died, with what varies between occurrences taken out, so that 2,000 dead letters read as the 3 distinct
 * failures they are. Two dead letters share a signature when their last attempt failed the same way (the same HTTP
 * status, or the same kind of error), with the same error text once numbers, ids and times are normalised away, at
 * the same callback host.
 *
 * <p>A pure function of the dead {@link Job}: archives store {@link #id()} when they write a dead letter (to group and
 * filter by it with their own indexes), and anyone can recompute it from the job.
 *
 * @param id      12 hex digits of a SHA-256 over kind, message and host: the {@code group} filter's value
 * @param kind    {@code "HTTP 503"} when the receiver answered, else the error's kind ({@code "timeout"},
 *                {@code "connect"}, {@code "lease expired"}, {@code "error"})
 * @param message the last error, normalised: numbers {@code #}, UUIDs {@code <uuid>}, long hex {@code <hex>}, ISO
 *                times {@code <time>}, at most 300 characters
 * @param host    the callback's {@code host[:port]}; {@code "topic callback"} when the job used its topic's callback;
 *                {@code "pull consumer"} or {@code "broadcast"} for the other lanes
 */
public record FailureSignature(String id, String kind, String message, String host) {
    private static final int MAX_MESSAGE = 300;
    private static final Pattern TIME = Pattern.compile(
            "\\d{4}-\\d{2}-\\d{2}[T ]\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?(Z|[+-]\\d{2}:?\\d{2})?");
    private static final Pattern UUID = Pattern.compile(
            "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");
    /** A token of 8+ hex digits with both a digit and a letter in it (request ids, hashes); digits alone are numbers. */
    private static final Pattern HEX = Pattern.compile(
            "\\b(?=[0-9a-fA-F]*[a-fA-F])(?=[0-9a-fA-F]*\\d)[0-9a-fA-F]{8,}\\b");
    private static final Pattern NUMBER = Pattern.compile("\\d+([.,]\\d+)*");
    private static final Pattern SPACES = Pattern.compile("\\s+");
    /** The signature's id: 12 hex digits. */
    public static final Pattern ID = Pattern.compile("[0-9a-f]{12}");

    /** The signature of a dead job (any job: one that never failed gets kind {@code "error"} and no message). */
    public static FailureSignature of(Job job) {
        List<Attempt> history = job.history() == null ? List.of() : job.history();
        Attempt last = history.isEmpty() ? null : history.get(history.size() - 1);
        Integer status = last == null ? null : last.httpStatus();
        String error = job.lastError() != null ? job.lastError() : last == null ? null : last.error();
        String kind = status != null ? "HTTP " + status : kindOf(error);
        String message = normalise(error);
        String host = hostOf(job);
        return new FailureSignature(digest(kind + "\n" + message + "\n" + host), kind, message, host);
    }

    /** The error text with what varies between occurrences replaced; "" for none. */
    public static String normalise(String error) {
        if (error == null) {
            return "";
        }
        String s = TIME.matcher(error).replaceAll("<time>");
        s = UUID.matcher(s).replaceAll("<uuid>");
        s = HEX.matcher(s).replaceAll("<hex>");
        s = NUMBER.matcher(s).replaceAll("#");
        s = SPACES.matcher(s).replaceAll(" ").trim();
        return s.length() <= MAX_MESSAGE ? s : s.substring(0, MAX_MESSAGE);
    }

    private static String kindOf(String error) {
        if (error == null) {
            return "error";
        }
        String e = error.toLowerCase(Locale.ROOT);
        if (e.contains("lease expired")) {
            return "lease expired";
        }
        if (e.contains("did not answer within") || e.contains("timed out") || e.contains("timeout")) {
            return "timeout";
        }
        if (e.contains("could not connect") || e.contains("connection refused") || e.contains("unknownhost")
                || e.contains("unknown host")) {
            return "connect";
        }
        return "error";
    }

    private static String hostOf(Job job) {
        if (job.callback() != null && job.callback().url() != null) {
            try {
                URI uri = URI.create(job.callback().url());
                if (uri.getHost() != null) {
                    String host = uri.getHost().toLowerCase(Locale.ROOT);
                    return uri.getPort() < 0 ? host : host + ":" + uri.getPort();
                }
            } catch (IllegalArgumentException e) {
                // a stored callback is validated on the way in; an unparsable one still gets a stable signature
            }
            return "unparsable callback";
        }
        if (job.broadcast()) {
            return "broadcast";
        }
        return job.delivery() == Delivery.PULL ? "pull consumer" : "topic callback";
    }

    private static String digest(String text) {
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(hash, 0, 6);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}
