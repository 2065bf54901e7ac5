package dev.racelab.backend;

import dev.racelab.engine.Service;

/** Hears how starting or reaching a server goes, to show progress to the user. */
@FunctionalInterface
public interface StartupListener {

    StartupListener SILENT = (service, stage, message) -> { };

    /** Where bringing a server up has got to. */
    enum Stage {
        /** Reaching an existing server: quick, or a clear failure. */
        CONNECTING,
        /** Starting an embedded server: can take seconds the first time. */
        STARTING,
        /** Something worth telling on the way, such as a leftover server that was stopped. */
        NOTE,
        /** The server is up; the message describes it. */
        READY
    }

    /** A step of bringing {@code service} up, in a few words: "Starting embedded PostgreSQL…". */
    void progress(Service service, Stage stage, String message);
}
