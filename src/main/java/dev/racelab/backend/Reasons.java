package dev.racelab.backend;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.NoRouteToHostException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;

/** Turns the network failures behind a driver's exception into a few words a user understands. */
final class Reasons {

    private Reasons() {
    }

    /**
     * Whether a server at {@code host}:{@code port} takes a TCP connection within two seconds: after
     * a login ran out its time, this tells a server that is slow to answer (it takes connections:
     * an overloaded machine, or a server stopped under a listening socket) from one that cannot be
     * reached. Connects and closes at once, sending nothing.
     */
    static boolean takesConnections(String host, int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), 2_000);
            return true;
        } catch (IOException | IllegalArgumentException | SecurityException e) {
            return false;
        }
    }

    /** "connection refused", "unknown host", …; or null if no network failure is behind {@code e}. */
    static String network(Throwable e) {
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            if (cause instanceof UnknownHostException) {
                return "unknown host";
            }
            if (cause instanceof ConnectException) {
                return "connection refused";
            }
            if (cause instanceof NoRouteToHostException) {
                return "no route to host";
            }
            if (cause instanceof SocketTimeoutException) {
                return "no answer in time";
            }
        }
        return null;
    }

    /** The innermost cause's message, or its kind where it has none: what a start failed of, in words. */
    static String root(Throwable e) {
        Throwable cause = e;
        while (cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage().strip();
    }
}
