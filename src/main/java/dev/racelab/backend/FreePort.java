package dev.racelab.backend;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/** Asks the operating system for a port nobody listens on. */
final class FreePort {

    private FreePort() {
    }

    static int find() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        }
    }
}
