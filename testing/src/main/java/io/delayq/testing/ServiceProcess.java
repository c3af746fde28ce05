package io.delayq.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A Dropwizard application (the delayq service, or the benchmark's ceiling app) in a JVM of its own, so that a test
 * or a harness can {@link #kill()} it ({@code kill -9}) and {@link #start()} it again on the same ports.
 *
 * <p>Built by {@link #jar(Path)} ({@code java -jar}, the shaded service) or {@link #mainClass(String, String)} (a
 * class on a classpath, e.g. the test's own), with a configuration file or YAML text, more top-level blocks after it
 * ({@link Builder#extraYaml}), and overrides passed as {@code -Ddw.<path>=<value>} ({@link Builder#override}). The
 * application and admin ports are free ports chosen once and passed as overrides, so the configuration's
 * {@code server:} must be the {@code default} type with one connector of each ({@link #LOCAL_SERVER_YAML}). Every
 * start appends to one log file, after a line saying which start it is.
 */
public final class ServiceProcess implements AutoCloseable {
    /** A {@code server:} block for a generated configuration: 127.0.0.1 only, no request log, ports overridden. */
    public static final String LOCAL_SERVER_YAML = """
            server:
              type: default
              applicationConnectors:
                - type: http
                  bindHost: 127.0.0.1
                  port: 0
              adminConnectors:
                - type: http
                  bindHost: 127.0.0.1
                  port: 0
              requestLog:
                appenders: []
            """;

    private final List<String> launch;
    private final List<String> javaOptions;
    private final Map<String, String> overrides;
    private final Path config;
    private final Path log;
    private final String heap;
    private final String readyPath;
    private final String readyToken;
    private final Duration startTimeout;
    private final int port;
    private final int adminPort;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1))
            .version(HttpClient.Version.HTTP_1_1).build();
    private Process process;
    private int starts;
    private long lastStartMs = -1;

    private ServiceProcess(Builder b, Path config) {
        this.launch = List.copyOf(b.launch);
        this.javaOptions = List.copyOf(b.javaOptions);
        this.overrides = Map.copyOf(b.overrides);
        this.config = config;
        this.heap = b.heap;
        this.readyPath = b.readyPath;
        this.readyToken = b.readyToken;
        this.startTimeout = b.startTimeout;
        this.port = b.port;
        this.adminPort = b.adminPort;
        this.log = b.log != null ? b.log : b.dir.resolve("service-" + port + ".log");
    }

    /** {@code java -jar <jar> server <config>}. */
    public static Builder jar(Path jar) {
        return new Builder(List.of("-jar", jar.toString()));
    }

    /** {@code java -cp <classpath> <className> server <config>}. */
    public static Builder mainClass(String className, String classpath) {
        return new Builder(List.of("-cp", classpath, className));
    }

    /** The test JVM's own classpath (surefire's when run by Maven), for {@link #mainClass}. */
    public static String testClasspath() {
        return System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    }

    /** A port nothing listens on at the moment. */
    public static int freePort() {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public int port() {
        return port;
    }

    public String baseUrl() {
        return "http://127.0.0.1:" + port;
    }

    public String adminUrl() {
        return "http://127.0.0.1:" + adminPort;
    }

    /** Where every start's output goes. */
    public Path log() {
        return log;
    }

    /** The configuration file it runs with. */
    public Path config() {
        return config;
    }

    /** The running JVM's process id, or -1 between a kill and the next start. */
    public long pid() {
        Process p = process;
        return p != null && p.isAlive() ? p.pid() : -1;
    }

    public boolean isAlive() {
        return process != null && process.isAlive();
    }

    /** How the process stands, for a note: never started, running, or its exit code. */
    public String exitDescription() {
        return process == null ? "never started" : process.isAlive() ? "running" : "exited with " + process.exitValue();
    }

    /** How many times it was started. */
    public int starts() {
        return starts;
    }

    /** Milliseconds from the last launch until it answered, or -1 before the first start. */
    public long lastStartMs() {
        return lastStartMs;
    }

    /** Starts the JVM and waits until {@code GET <readyPath>} answers 200; a child that exits first fails it. */
    public ServiceProcess start() throws IOException, InterruptedException {
        starts++;
        Files.writeString(log, "=== start #" + starts + " at " + Instant.now() + "\n",
                StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx" + heap);
        javaOptions.forEach(o -> command.add(o.replace("{start}", Integer.toString(starts))));
        overrides.forEach((k, v) -> command.add("-Ddw." + k + "=" + v));
        command.add("-Ddw.server.applicationConnectors[0].port=" + port);
        command.add("-Ddw.server.adminConnectors[0].port=" + adminPort);
        command.addAll(launch);
        command.add("server");
        command.add(config.toAbsolutePath().toString());
        long t0 = System.currentTimeMillis();
        process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        while (!answers()) {
            if (!process.isAlive()) {
                throw new IllegalStateException("the process exited at start with " + process.exitValue()
                        + "; its log, " + log + ":\n" + tail());
            }
            if (System.currentTimeMillis() - t0 > startTimeout.toMillis()) {
                throw new IllegalStateException("the process did not answer " + readyPath + " within "
                        + startTimeout.toSeconds() + " s; its log, " + log + ":\n" + tail());
            }
            Thread.sleep(50);
        }
        lastStartMs = System.currentTimeMillis() - t0;
        return this;
    }

    /** {@code kill -9}: no shutdown hook, no graceful stop, whatever was in flight is cut off; returns once it is gone. */
    public void kill() throws InterruptedException {
        if (process != null) {
            process.destroyForcibly();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the process (pid " + process.pid() + ") outlived SIGKILL for 30 s");
            }
        }
    }

    /** A clean stop (SIGTERM), then {@code kill -9} after 30 s. */
    @Override
    public void close() throws InterruptedException {
        if (process != null && process.isAlive()) {
            process.destroy();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                kill();
            }
        }
    }

    private boolean answers() {
        try {
            HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(baseUrl() + readyPath))
                    .timeout(Duration.ofSeconds(2)).GET();
            if (readyToken != null) {
                request.header("Authorization", "Bearer " + readyToken);
            }
            return http.send(request.build(), HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
        } catch (IOException e) {
            return false; // not listening yet
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** The log's last 100 lines: a failed start says why without the whole history of earlier starts. */
    private String tail() {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 100), lines.size()));
        } catch (IOException | UncheckedIOException e) {
            return "(unreadable: " + e + ")";
        }
    }

    /** What to run, and how; {@link #build()} writes the configuration file when it is given as text. */
    public static final class Builder {
        private final List<String> launch;
        private final List<String> javaOptions = new ArrayList<>();
        private final Map<String, String> overrides = new LinkedHashMap<>();
        private Path dir;
        private Path configFile;
        private String configYaml;
        private String extraYaml = "";
        private Path log;
        private String heap = "256m";
        private String readyPath = "/openapi.yaml";
        private String readyToken;
        // a backstop: a start returns as soon as the process answers; a 2-core machine under a parallel build's load
        // has taken more than 90 s to start the service
        private Duration startTimeout = Duration.ofSeconds(180);
        private int port = freePort();
        private int adminPort = freePort();

        private Builder(List<String> launch) {
            this.launch = launch;
        }

        /** Where the configuration (when generated) and the log go; a new temporary directory unless set. */
        public Builder directory(Path dir) {
            this.dir = dir;
            return this;
        }

        /** The configuration file, used as is unless {@link #extraYaml} adds to it (then in a copy). */
        public Builder config(Path file) {
            this.configFile = file;
            return this;
        }

        /** The configuration as YAML text, written to a file of its own. */
        public Builder configYaml(String yaml) {
            this.configYaml = yaml;
            return this;
        }

        /** More top-level blocks after the configuration's (e.g. {@code tenants:}), or "". */
        public Builder extraYaml(String yaml) {
            this.extraYaml = yaml;
            return this;
        }

        /** {@code -Ddw.<path>=<value>}, as Dropwizard's {@code ConfigOverride.config(path, value)}. */
        public Builder override(String path, String value) {
            overrides.put(path, value);
            return this;
        }

        /** Each entry as {@link #override}. */
        public Builder overrides(Map<String, String> pathsToValues) {
            overrides.putAll(pathsToValues);
            return this;
        }

        /** The child's {@code -Xmx}, e.g. {@code 512m}; 256m unless set. */
        public Builder heap(String heap) {
            this.heap = heap;
            return this;
        }

        /** More JVM options (e.g. a flight recording); {@code {start}} in one is replaced by the start's number. */
        public Builder javaOptions(List<String> options) {
            javaOptions.addAll(options);
            return this;
        }

        /** The log file; {@code service-<port>.log} in the directory unless set. */
        public Builder log(Path file) {
            this.log = file;
            return this;
        }

        /** Ready when {@code GET path} answers 200, with {@code bearerToken} (or none when null); /openapi.yaml unless set. */
        public Builder readyWhen(String path, String bearerToken) {
            this.readyPath = path;
            this.readyToken = bearerToken;
            return this;
        }

        /** How long a start may take before it fails; 180 s unless set. */
        public Builder startTimeout(Duration timeout) {
            this.startTimeout = timeout;
            return this;
        }

        /** The application port; a free one unless set. */
        public Builder port(int port) {
            this.port = port;
            return this;
        }

        /** Not started yet: {@link ServiceProcess#start()}. */
        public ServiceProcess build() throws IOException {
            if ((configFile == null) == (configYaml == null)) {
                throw new IllegalStateException("give the configuration either as a file or as YAML text");
            }
            if (dir == null) {
                dir = Files.createTempDirectory("delayq-process");
            }
            Path config = configFile;
            if (configYaml != null || !extraYaml.isEmpty()) {
                String yaml = configYaml != null ? configYaml : Files.readString(configFile);
                config = dir.resolve("config-" + port + ".yml");
                Files.writeString(config, yaml + (extraYaml.isEmpty() ? "" : "\n" + extraYaml));
            }
            return new ServiceProcess(this, config);
        }
    }
}
