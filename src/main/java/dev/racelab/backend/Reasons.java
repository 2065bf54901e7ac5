package dev.racelab.backend;

import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;

/** Turns the network failures behind a driver's exception into a few words a user understands. */
final class Reasons {

    private Reasons() {
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
}
