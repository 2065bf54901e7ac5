package dev.racelab.cli;

import dev.racelab.backend.StartupListener;
import dev.racelab.engine.Service;

import java.io.PrintStream;

/** Shows server start-up on standard error, so standard output stays the result alone. */
final class StartupProgress implements StartupListener {

    private final PrintStream err;

    StartupProgress(PrintStream err) {
        this.err = err;
    }

    @Override
    public void progress(Service service, String message) {
        if (!message.startsWith("Ready")) {
            err.println(message);
        }
    }
}
