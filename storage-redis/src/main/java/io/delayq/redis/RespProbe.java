package io.delayq.redis;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * The few Redis commands {@link EmbeddedRedis} sends itself, over a plain socket (no client library, no pool): is a
 * server there, which process is it, is it ready, and a {@code CONFIG SET}. Each opens its own short connection.
 */
final class RespProbe {
    private static final Logger LOG = LoggerFactory.getLogger(RespProbe.class);

    /**
     * What answers on a port.
     *
     * @param pid         the server's {@code process_id}, or -1 when it is not a Redis that tells it
     * @param description what it is, for a message
     */
    record ServerInfo(long pid, String description) {
    }

    private RespProbe() {
    }

    /** Null when nothing accepts connections on the port. */
    static ServerInfo serverInfo(int port) {
        try (Socket socket = new Socket()) {
            try {
                socket.connect(new InetSocketAddress("127.0.0.1", port), 500);
            } catch (IOException nothingThere) {
                return null;
            }
            socket.setSoTimeout(2_000);
            try {
                String reply = command(socket, "INFO", "server");
                for (String line : reply.split("\r\n")) {
                    if (line.startsWith("process_id:")) {
                        return new ServerInfo(Long.parseLong(line.substring("process_id:".length()).trim()),
                                "a Redis server");
                    }
                }
                return new ServerInfo(-1, "a Redis server that does not tell its process id");
            } catch (IllegalStateException refused) {
                return new ServerInfo(-1, "a server that answers INFO with '" + refused.getMessage() + "'");
            } catch (IOException | RuntimeException notRedis) {
                return new ServerInfo(-1, "a program that does not answer as Redis does");
            }
        } catch (IOException e) {
            return new ServerInfo(-1, "a program that accepts connections but " + e.getMessage());
        }
    }

    /** The process id of the Redis answering on the port, or -1. */
    static long pidOf(int port) {
        ServerInfo info = serverInfo(port);
        return info == null ? -1 : info.pid();
    }

    /** {@code CONFIG SET name value}; a refusal is logged, not thrown (the server runs with its own setting). */
    static void configSet(int port, String name, String value) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 500);
            socket.setSoTimeout(10_000);
            command(socket, "CONFIG", "SET", name, value);
        } catch (IOException | RuntimeException e) {
            LOG.warn("embedded Redis on port {}: could not set {} to {}: {}", port, name, value, e.getMessage());
        }
    }

    /**
     * Sends one command and reads a simple or bulk string reply.
     *
     * @throws IllegalStateException with the server's error line
     */
    private static String command(Socket socket, String... args) throws IOException {
        StringBuilder out = new StringBuilder("*").append(args.length).append("\r\n");
        for (String arg : args) {
            byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
            out.append('$').append(bytes.length).append("\r\n").append(arg).append("\r\n");
        }
        OutputStream os = socket.getOutputStream();
        os.write(out.toString().getBytes(StandardCharsets.UTF_8));
        os.flush();
        InputStream in = socket.getInputStream();
        String first = readLine(in);
        if (first.startsWith("-")) {
            throw new IllegalStateException(first.substring(1));
        }
        if (first.startsWith("+")) {
            return first.substring(1);
        }
        if (first.startsWith("$")) {
            int length = Integer.parseInt(first.substring(1));
            byte[] body = in.readNBytes(Math.max(0, length));
            if (body.length < length) {
                throw new IOException("the reply ended early");
            }
            return new String(body, StandardCharsets.UTF_8);
        }
        throw new IOException("unexpected reply '" + first + "'");
    }

    private static String readLine(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        int c;
        while ((c = in.read()) != -1) {
            if (c == '\n') {
                int end = line.length() - 1;
                return end >= 0 && line.charAt(end) == '\r' ? line.substring(0, end) : line.toString();
            }
            if (line.length() > 4_096) {
                throw new IOException("no line end in the first 4 KiB");
            }
            line.append((char) c);
        }
        throw new IOException("the connection closed before a reply");
    }

    /** Whether the server on the port answers PING with PONG (not yet while it loads its append-only file). */
    static boolean answersPing(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
            socket.setSoTimeout(500);
            OutputStream out = socket.getOutputStream();
            out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            byte[] buffer = new byte[64];
            int n = socket.getInputStream().read(buffer);
            // "-LOADING" while an append-only file is replayed: not ready yet
            return n > 0 && new String(buffer, 0, n, StandardCharsets.US_ASCII).startsWith("+PONG");
        } catch (IOException e) {
            return false;
        }
    }
}
