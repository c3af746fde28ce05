package io.delayq.redis;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.TimeUnit;

/**
 * The {@code redis-server} that {@link EmbeddedRedis} runs: the linux-amd64 binary shipped inside the
 * {@code embedded-redis} jar, extracted once per machine to the temp directory; when it cannot run here,
 * {@code redis-server} from the PATH. The jar names the binary 6.2.6; the binary itself says it is Redis
 * {@value #VERSION} ({@code redis-server --version}), and that is the version the store is tested on.
 */
final class RedisServerBinary {
    private static final Logger LOG = LoggerFactory.getLogger(RedisServerBinary.class);
    /** The Redis version of the bundled binary, as {@code redis-server --version} prints it. */
    static final String VERSION = "6.2.11";
    /** The binary's name in the embedded-redis jar (its "6.2.6" is not the version the binary reports). */
    private static final String BUNDLED = "redis-server-6.2.6-v5-linux-amd64";

    private static String executable;

    private RedisServerBinary() {
    }

    /** The binary to run: the bundled one when it runs here, else {@code redis-server} from the PATH. */
    static synchronized String path() {
        if (executable == null) {
            String bundled = extractBundled();
            executable = bundled != null && runs(bundled) ? bundled : "redis-server";
            if (!executable.equals(bundled)) {
                LOG.warn("the bundled {} cannot run here; using redis-server from the PATH", BUNDLED);
            }
        }
        return executable;
    }

    /** Extracts the bundled binary once per machine (atomic move, so concurrent JVMs never see half a file). */
    private static String extractBundled() {
        try (InputStream in = RedisServerBinary.class.getResourceAsStream("/" + BUNDLED)) {
            if (in == null) {
                return null;
            }
            Path dir = Path.of(System.getProperty("java.io.tmpdir"), "delayq-redis-" + System.getProperty("user.name"));
            Files.createDirectories(dir);
            Path target = dir.resolve(BUNDLED);
            if (Files.isExecutable(target) && Files.size(target) > 0) {
                return target.toString();
            }
            Path temp = Files.createTempFile(dir, BUNDLED, ".part");
            Files.copy(in, temp, StandardCopyOption.REPLACE_EXISTING);
            temp.toFile().setExecutable(true);
            Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            return target.toString();
        } catch (IOException e) {
            LOG.warn("cannot extract the bundled redis-server: {}", e.getMessage());
            return null;
        }
    }

    private static boolean runs(String binary) {
        try {
            Process p = new ProcessBuilder(binary, "--version").redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
