package io.delayq.redis;

import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisNoScriptException;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.EnumMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * The Lua scripts of the store: read from {@code io/delayq/redis/lua/<name>.lua}, with
 * {@code --#include lib/<file>.lua} lines replaced by that file, loaded once and called by SHA; a server that lost its
 * script cache (restart, {@code SCRIPT FLUSH}, another cluster node) gets the script again and the call is retried
 * once.
 */
final class Scripts {
    /**
     * The scripts, one per store operation (and {@code leases}, a read, to spare the network the payloads; {@code now},
     * the server's clock), one per write of a callback origin's circuit and of the origins a topic's jobs use
     * ({@link RedisCircuitBreakers}), one per change of the tenancy and its atomic read ({@link RedisTenantRegistry}),
     * and a token bucket's take ({@link RedisRateLimiters}), the writes of recurring schedules
     * ({@link RedisScheduleStore}), and the writes of the SETs of topics with their indexes by name
     * ({@link TopicNameIndex}).
     */
    enum Op {
        ENQUEUE, RESERVE, ACK, NACK, EXTEND, EXPIRE, CANCEL, RESCHEDULE, TRIM, SETTINGS, QUARANTINE, LEASES, NOW,
        BREAKER_FAILURE, BREAKER_SUCCESS, BREAKER_PROBE, BREAKER_HELD, BREAKER_EXPIRE, TOPIC_ORIGINS,
        TENANCY_READ, TENANT_PUT, TENANT_DELETE, TOKEN_PUT, TOKEN_DELETE, TOKEN_USE, RATE_TAKE,
        EXPIRE_OVERDUE, SCHEDULE_PUT, SCHEDULE_FIRE, SCHEDULE_DELETE, LIST_JOBS,
        TOPICS_ADD, TOPICS_REMOVE, TOPIC_FORGET, TOPICS_INDEX;

        String resource() {
            return name().toLowerCase(java.util.Locale.ROOT) + ".lua";
        }
    }

    private static final String INCLUDE = "--#include ";

    private final UnifiedJedis redis;
    private final Map<Op, String> sources = new EnumMap<>(Op.class);
    private final Map<Op, String> shas = new EnumMap<>(Op.class);

    Scripts(UnifiedJedis redis) {
        this.redis = redis;
        for (Op op : Op.values()) {
            String source = source(op.resource());
            sources.put(op, source);
            shas.put(op, sha1(source));
        }
    }

    /** Loads every script into the server (fails fast on a script Redis cannot compile). */
    void loadAll(String sampleKey) {
        for (Op op : Op.values()) {
            String sha = redis.scriptLoad(sources.get(op), sampleKey);
            if (!sha.equals(shas.get(op))) {
                throw new IllegalStateException("Redis answered SHA " + sha + " for " + op.resource() + ", expected " + shas.get(op));
            }
        }
    }

    Object eval(Op op, List<String> keys, List<String> args) {
        try {
            return redis.evalsha(shas.get(op), keys, args);
        } catch (JedisNoScriptException e) {
            reload(op, keys.get(0));
            return redis.evalsha(shas.get(op), keys, args);
        }
    }

    void reload(Op op, String sampleKey) {
        redis.scriptLoad(sources.get(op), sampleKey);
    }

    String sha(Op op) {
        return shas.get(op);
    }

    /** The script text as sent to Redis (includes resolved). */
    String source(Op op) {
        return sources.get(op);
    }

    static boolean isNoScript(Throwable e) {
        return e instanceof JedisNoScriptException
                || e instanceof JedisDataException && e.getMessage() != null && e.getMessage().startsWith("NOSCRIPT");
    }

    /** Reads a script resource and resolves its includes. */
    static String source(String resource) {
        String text = read(resource);
        StringBuilder out = new StringBuilder(text.length() + 2048);
        for (String line : text.split("\n", -1)) {
            if (line.startsWith(INCLUDE)) {
                out.append(read(line.substring(INCLUDE.length()).trim())).append('\n');
            } else {
                out.append(line).append('\n');
            }
        }
        return out.toString();
    }

    private static String read(String resource) {
        try (InputStream in = Scripts.class.getResourceAsStream("lua/" + resource)) {
            if (in == null) {
                throw new IllegalStateException("script resource io/delayq/redis/lua/" + resource + " is missing from the jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String sha1(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is part of every JRE", e);
        }
    }
}
