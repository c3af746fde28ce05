package io.delayq.fault;

import io.delayq.mongo.EmbeddedMongo;
import io.delayq.redis.EmbeddedRedis;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Everything a scenario acts on, started by the suite itself in one run directory:
 *
 * <ul>
 *   <li>Redis: the {@code redis-server} bundled with storage-redis ({@link EmbeddedRedis}), a child of the suite's
 *       JVM with {@code appendonly yes, appendfsync always} in {@code <dir>/redis}, on a port that stays the same
 *       when the suite kills it ({@code kill -9}) and starts it again on the same append-only file;</li>
 *   <li>the archive: an {@link EmbeddedMongo} (the MongoDB-wire-protocol server the service embeds by default) in the
 *       suite's JVM with its data in {@code <dir>/archive}, reached by the service only through a {@link TcpProxy}
 *       the suite can cut;</li>
 *   <li>the service: the shaded jar as a child JVM ({@link ServiceProcess}) with {@code store.uri} and
 *       {@code archive.uri} pointing at the two above;</li>
 *   <li>callback receivers ({@link Receiver}) recording into one {@link DeliveryLog}.</li>
 * </ul>
 */
final class FaultRig implements AutoCloseable {
    final Path dir;
    final ServiceProcess service;
    final ServiceApi api;
    final TcpProxy archiveProxy;
    final DeliveryLog deliveries = new DeliveryLog();
    private final int redisPort;
    private final EmbeddedMongo archive;
    private final List<Receiver> receivers = new ArrayList<>();
    private volatile EmbeddedRedis redis;
    private long lastStartMs;

    private FaultRig(Path dir, SuiteOptions options) throws IOException {
        this.dir = dir;
        this.redisPort = ServiceProcess.freePort();
        this.redis = startRedisServer();
        this.archive = EmbeddedMongo.start(0, dir.resolve("archive"));
        this.archiveProxy = new TcpProxy(archive.port());
        this.service = new ServiceProcess(options.resolveServiceJar(), dir, redis.uri(),
                "mongodb://127.0.0.1:" + archiveProxy.port() + "/", options.serviceHeap());
        this.api = new ServiceApi(service);
    }

    /** Starts Redis, the archive and its proxy, and the service. */
    static FaultRig start(Path dir, SuiteOptions options) throws Exception {
        FaultRig rig = new FaultRig(dir, options);
        try {
            rig.startService();
            return rig;
        } catch (Exception | Error e) {
            rig.close();
            throw e;
        }
    }

    /** Starts the service (again). @return ms from launch until the API answered */
    long startService() throws IOException, InterruptedException {
        lastStartMs = service.start();
        return lastStartMs;
    }

    /** How long the last start took, for sizing what a scenario schedules around its restarts. */
    long lastStartMs() {
        return lastStartMs;
    }

    /** {@code kill -9} of Redis: what it acknowledged is in the append-only file (fsync on every write). */
    void killRedis() {
        redis.kill();
    }

    /** Starts Redis again on the same port and append-only file (it replays the file before it answers). */
    void startRedis() {
        redis = startRedisServer();
    }

    private EmbeddedRedis startRedisServer() {
        return EmbeddedRedis.start(redisPort, dir.resolve("redis"), true, "always");
    }

    /** A receiver that is closed with the rig. */
    Receiver receiver(Receiver.Behaviour behaviour) throws IOException {
        Receiver r = new Receiver(behaviour, deliveries);
        synchronized (receivers) {
            receivers.add(r);
        }
        return r;
    }

    @Override
    public void close() throws Exception {
        try {
            service.close();
        } finally {
            synchronized (receivers) {
                receivers.forEach(Receiver::close);
            }
            archiveProxy.close();
            archive.close();
            redis.close();
        }
    }
}
