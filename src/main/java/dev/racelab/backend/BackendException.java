package dev.racelab.backend;

import dev.racelab.engine.Service;

/**
 * A server could not be reached, started or used. The message names the server, its address and
 * the reason, in one sentence fit to show a user as it is; it never contains a password.
 */
public final class BackendException extends Exception {

    private final Service service;

    public BackendException(Service service, String message, Throwable cause) {
        super(message, cause);
        this.service = service;
    }

    public BackendException(Service service, String message) {
        this(service, message, null);
    }

    /** Which server failed. */
    public Service service() {
        return service;
    }
}
