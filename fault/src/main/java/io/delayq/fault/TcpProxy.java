package io.delayq.fault;

import io.delayq.testing.ServiceProcess;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP relay in front of the archive, so that the suite can make the archive unreachable without stopping it:
 * {@link #cut()} resets every open connection and closes the listening port (a connect is refused, as when the host
 * or its MongoDB is down); {@link #heal()} listens on the same port again. The archive itself keeps running and keeps
 * its data, so what the service wrote before the cut is still there after it.
 */
final class TcpProxy implements AutoCloseable {
    private final int port;
    private final InetSocketAddress target;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private volatile ServerSocket listener;
    private Thread acceptor;

    TcpProxy(int targetPort) throws IOException {
        this.target = new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort);
        this.port = ServiceProcess.freePort();
        heal();
    }

    int port() {
        return port;
    }

    /** Resets every relayed connection and stops listening: the archive is unreachable until {@link #heal()}. */
    synchronized void cut() throws IOException {
        ServerSocket l = listener;
        listener = null;
        if (l != null) {
            l.close();
            try {
                // the JDK defers closing a socket that a thread is blocked in accept() on until that thread leaves it
                acceptor.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        for (Socket s : open) {
            reset(s);
        }
        open.clear();
    }

    /** Listens again on the same port. */
    synchronized void heal() throws IOException {
        if (listener != null) {
            return;
        }
        ServerSocket l = new ServerSocket();
        l.setReuseAddress(true); // the port was ours a moment ago; sockets of the cut may still be in TIME_WAIT
        l.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 128);
        listener = l;
        acceptor = new Thread(() -> accept(l), "fault-proxy-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    private void accept(ServerSocket l) {
        while (!l.isClosed()) {
            Socket client;
            try {
                client = l.accept();
            } catch (IOException e) {
                return; // cut or closed
            }
            try {
                Socket server = new Socket();
                server.connect(target, 2_000);
                client.setTcpNoDelay(true);
                server.setTcpNoDelay(true);
                open.add(client);
                open.add(server);
                pump(client, server);
                pump(server, client);
            } catch (IOException e) {
                reset(client);
            }
        }
    }

    private void pump(Socket from, Socket to) {
        Thread t = new Thread(() -> {
            byte[] buffer = new byte[16 * 1024];
            try (InputStream in = from.getInputStream()) {
                OutputStream out = to.getOutputStream();
                for (int n; (n = in.read(buffer)) >= 0; ) {
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException e) {
                // either side went away, or the cut reset it
            } finally {
                reset(from);
                reset(to);
            }
        }, "fault-proxy-pump");
        t.setDaemon(true);
        t.start();
    }

    /** Closes with a RST rather than a FIN, as a dropped connection looks to its peer. */
    private void reset(Socket s) {
        open.remove(s);
        try {
            s.setSoLinger(true, 0);
        } catch (IOException ignored) {
            // already closed
        }
        try {
            s.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }

    @Override
    public void close() throws IOException {
        cut();
    }
}
