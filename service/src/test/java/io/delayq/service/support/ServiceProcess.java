package io.delayq.service.support;

import io.delayq.service.DelayqApplication;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.ResourceHelpers;

import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * The service in a JVM of its own, started from the test's classpath with test-config.yml, the selected test store
 * ({@link TestApps#overrides}) and a fixed application port, so that a test can {@code kill -9} it and start it
 * again on the same port. Its output goes to a log file beside the test's temporary files.
 */
public final class ServiceProcess implements AutoCloseable {
    private final List<String> command;
    private final Path log;
    private final int port;
    private Process process;

    private ServiceProcess(List<String> command, Path log, int port) {
        this.command = command;
        this.log = log;
        this.port = port;
    }

    /** A service on a free port with the selected store and {@code overrides}; not started yet. */
    public static ServiceProcess create(Path dir, ConfigOverride... overrides) throws IOException {
        return create(dir, "", overrides);
    }

    /**
     * As {@link #create(Path, ConfigOverride...)}, with more top-level blocks after test-config.yml's (e.g.
     * {@code tenants:}), written to a configuration file of its own in {@code dir}.
     */
    public static ServiceProcess create(Path dir, String extraYaml, ConfigOverride... overrides) throws IOException {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx256m");
        systemProperties(TestApps.overrides(overrides)).forEach((k, v) -> command.add("-D" + k + "=" + v));
        command.add("-Ddw.server.applicationConnectors[0].port=" + port);
        command.add("-cp");
        command.add(System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")));
        command.add(DelayqApplication.class.getName());
        command.add("server");
        Path config = Path.of(ResourceHelpers.resourceFilePath("test-config.yml"));
        if (!extraYaml.isEmpty()) {
            config = dir.resolve("config-" + port + ".yml");
            Files.writeString(config, Files.readString(Path.of(ResourceHelpers.resourceFilePath("test-config.yml")))
                    + "\n" + extraYaml);
        }
        command.add(config.toAbsolutePath().toString());
        return new ServiceProcess(command, dir.resolve("service-" + port + ".log"), port);
    }

    /**
     * What Dropwizard would read from {@code ConfigOverride}s in this JVM, as {@code dw.*} properties for the child.
     * Other {@code dw.*} properties of this JVM (another test's, left set) are put aside meanwhile, so that an override
     * whose value one of them happens to have is passed on all the same.
     */
    private static Map<String, String> systemProperties(ConfigOverride[] overrides) {
        Map<String, String> aside = new TreeMap<>();
        System.getProperties().forEach((k, v) -> {
            if (k.toString().startsWith("dw.")) {
                aside.put(k.toString(), v.toString());
            }
        });
        aside.keySet().forEach(System::clearProperty);
        Map<String, String> added = new TreeMap<>();
        try {
            for (ConfigOverride o : overrides) {
                o.addToSystemProperties();
            }
            System.getProperties().forEach((k, v) -> {
                if (k.toString().startsWith("dw.")) {
                    added.put(k.toString(), v.toString());
                }
            });
        } finally {
            for (ConfigOverride o : overrides) {
                o.removeFromSystemProperties();
            }
            aside.forEach(System::setProperty);
        }
        return added;
    }

    /** Starts the JVM and waits until the API answers. */
    public ServiceProcess start() throws IOException, InterruptedException {
        process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        long deadline = System.currentTimeMillis() + 60_000;
        while (!answers()) {
            if (!process.isAlive()) {
                throw new IllegalStateException("the service exited with " + process.exitValue() + "; its log:\n"
                        + Files.readString(log));
            }
            if (System.currentTimeMillis() > deadline) {
                throw new IllegalStateException("the service did not answer within 60 s; its log:\n"
                        + Files.readString(log));
            }
            Thread.sleep(100);
        }
        return this;
    }

    /** SIGKILL: no shutdown hook, no graceful stop, whatever was in flight is cut off. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    public String baseUrl() {
        return "http://127.0.0.1:" + port;
    }

    private boolean answers() {
        try {
            HttpURLConnection c = (HttpURLConnection) URI.create(baseUrl() + "/openapi.yaml").toURL().openConnection();
            c.setConnectTimeout(500);
            c.setReadTimeout(2_000);
            try {
                return c.getResponseCode() == 200;
            } finally {
                c.disconnect();
            }
        } catch (IOException e) {
            return false;
        }
    }

    @Override
    public void close() throws InterruptedException {
        if (process != null && process.isAlive()) {
            process.destroy();
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                kill();
            }
        }
    }
}
