package io.delayq.fault;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The proxy relays, and a cut makes the target unreachable until the heal. */
class TcpProxyTest {

    @Test
    void relaysThenRefusesAndResetsWhileCutThenRelaysAgain() throws Exception {
        try (ServerSocket echo = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Thread server = new Thread(() -> echo(echo));
            server.setDaemon(true);
            server.start();
            try (TcpProxy proxy = new TcpProxy(echo.getLocalPort())) {
                Socket before = new Socket(InetAddress.getLoopbackAddress(), proxy.port());
                assertThat(roundTrip(before, 'a')).isEqualTo('a');

                proxy.cut();
                assertThatThrownBy(() -> roundTrip(before, 'b')).as("an open connection is reset")
                        .isInstanceOf(IOException.class);
                assertThatThrownBy(() -> new Socket(InetAddress.getLoopbackAddress(), proxy.port()))
                        .as("a new connection is refused").isInstanceOf(ConnectException.class);

                proxy.heal();
                try (Socket after = new Socket(InetAddress.getLoopbackAddress(), proxy.port())) {
                    assertThat(roundTrip(after, 'c')).isEqualTo('c');
                }
            }
        }
    }

    private static int roundTrip(Socket s, char c) throws IOException {
        s.setSoTimeout(5_000);
        OutputStream out = s.getOutputStream();
        out.write(c);
        out.flush();
        int read = s.getInputStream().read();
        if (read < 0) {
            throw new IOException("closed");
        }
        return read;
    }

    private static void echo(ServerSocket server) {
        while (!server.isClosed()) {
            try {
                Socket s = server.accept();
                Thread t = new Thread(() -> {
                    try (s; InputStream in = s.getInputStream(); OutputStream out = s.getOutputStream()) {
                        for (int b; (b = in.read()) >= 0; ) {
                            out.write(b);
                            out.flush();
                        }
                    } catch (IOException ignored) {
                        // reset by the cut
                    }
                });
                t.setDaemon(true);
                t.start();
            } catch (IOException e) {
                return;
            }
        }
    }
}
