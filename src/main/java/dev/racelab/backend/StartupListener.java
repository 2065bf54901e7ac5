package dev.racelab.backend;

import dev.racelab.engine.Service;

/** Hears how starting or reaching a server goes, to show progress to the user. */
@FunctionalInterface
public interface StartupListener {

    StartupListener SILENT = (service, message) -> { };

    /** A step of bringing {@code service} up, in a few words: "Starting embedded PostgreSQL…". */
    void progress(Service service, String message);
}
