package dev.racelab.backend.wire;

import java.io.IOException;

/**
 * Talking to the server failed: the connection could not be made or broke, the login was
 * refused, the server said something this client does not understand, or a reply did not come in
 * time. {@link #serverMessage()} is the server's own error when it sent one (a refused login, a
 * database that does not exist).
 */
public class WireException extends IOException {

    private final transient ServerMessage serverMessage;

    public WireException(String message) {
        this(message, null, null);
    }

    public WireException(String message, Throwable cause) {
        this(message, null, cause);
    }

    public WireException(String message, ServerMessage serverMessage, Throwable cause) {
        super(message, cause);
        this.serverMessage = serverMessage;
    }

    public ServerMessage serverMessage() {
        return serverMessage;
    }

    /** The server's SQLSTATE for this failure, or null if it sent none. */
    public String sqlState() {
        return serverMessage == null ? null : serverMessage.sqlState();
    }

    /** No reply came within the bound the caller set. */
    public static final class Timeout extends WireException {
        public Timeout(String message) {
            super(message);
        }
    }
}
