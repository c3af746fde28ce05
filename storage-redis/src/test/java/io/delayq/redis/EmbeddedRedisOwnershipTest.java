package io.delayq.redis;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Who owns the embedded {@code redis-server}: a {@code kill -9} of the JVM that started it leaves it running; the
 * next start on the same data directory adopts it (and stops it when it stops); anything else on the port is refused.
 */
class EmbeddedRedisOwnershipTest {

    /** Run in a child JVM by the test: starts an embedded Redis on {@code args[0]} / {@code args[1]} and waits. */
    public static void main(String[] args) throws InterruptedException {
        EmbeddedRedis.start(Integer.parseInt(args[0]), Path.of(args[1]), true);
        System.out.println("ready");
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }

    @Test
    void aServerLeftByAKilledOwnerIsAdoptedByTheNextStartAndStoppedByItsCleanStop(@TempDir Path dir) throws Exception {
        int port = freePort();
        Path dataDir = dir.resolve("redis");
        Process owner = ownerJvm(port, dataDir);
        try (Jedis jedis = new Jedis("127.0.0.1", port)) {
            jedis.set("left-by-the-first-owner", "yes");
        }
        long serverPid = Long.parseLong(Files.readString(dataDir.resolve(EmbeddedRedis.PID_FILE)).trim());
        owner.destroyForcibly(); // kill -9: no shutdown hook runs
        owner.waitFor(10, TimeUnit.SECONDS);
        assertThat(answers(port)).as("the server outlives the JVM that started it").isTrue();

        EmbeddedRedis second = EmbeddedRedis.start(port, dataDir, true);
        try {
            assertThat(second.isRunning()).as("the handle of the second start runs").isTrue();
            assertThat(second.pid()).as("the server left running, not a new one").isEqualTo(serverPid);
            assertThat(second.isAdopted()).isTrue();
            try (Jedis jedis = new Jedis("127.0.0.1", port)) {
                assertThat(jedis.get("left-by-the-first-owner")).isEqualTo("yes");
            }
        } finally {
            second.close();
        }

        assertThat(answers(port)).as("a clean stop of the adopter stops the server").isFalse();
        assertThat(ProcessHandle.of(serverPid).map(ProcessHandle::isAlive).orElse(false)).isFalse();
        assertThat(dataDir.resolve(EmbeddedRedis.PID_FILE)).as("removed by the server's clean stop").doesNotExist();
    }

    @Test
    void aServerThatIsNotOursOnThePortIsRefusedNotTakenForOurs(@TempDir Path dir) {
        try (EmbeddedRedis other = EmbeddedRedis.start(0, dir.resolve("other"), true)) {
            int port = other.port();

            assertThatThrownBy(() -> EmbeddedRedis.start(port, dir.resolve("ours"), true))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("port " + port)
                    .hasMessageContaining("already in use")
                    .hasMessageContaining("not the embedded Redis of data dir");
            assertThatThrownBy(() -> EmbeddedRedis.start(port, null, false))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("already in use");
            assertThat(other.isRunning()).as("the other server is left alone").isTrue();
        }
    }

    @Test
    void aFreshStartIsNotAdoptedAndItsCleanStopEndsTheServer(@TempDir Path dir) {
        EmbeddedRedis server = EmbeddedRedis.start(0, dir, true);
        int port = server.port();
        assertThat(server.isAdopted()).isFalse();
        assertThat(dir.resolve(EmbeddedRedis.PID_FILE)).exists();

        server.close();

        assertThat(answers(port)).isFalse();
        assertThat(dir.resolve(EmbeddedRedis.PID_FILE)).doesNotExist();
    }

    private static Process ownerJvm(int port, Path dataDir) throws IOException {
        Process process = new ProcessBuilder(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")),
                EmbeddedRedisOwnershipTest.class.getName(), Integer.toString(port), dataDir.toString()))
                .redirectErrorStream(true).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        StringBuilder seen = new StringBuilder();
        String line;
        while ((line = out.readLine()) != null) {
            seen.append(line).append('\n');
            if (line.equals("ready")) {
                Thread drain = new Thread(() -> {
                    try {
                        out.transferTo(java.io.Writer.nullWriter());
                    } catch (IOException ended) {
                        // the JVM was killed
                    }
                });
                drain.setDaemon(true);
                drain.start();
                return process;
            }
        }
        throw new IllegalStateException("the owner JVM ended before its Redis was ready:\n" + seen);
    }

    private static boolean answers(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 500);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static int freePort() throws IOException {
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
