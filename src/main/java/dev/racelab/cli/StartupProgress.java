package dev.racelab.cli;

import dev.racelab.backend.StartupListener;
import dev.racelab.engine.Service;

import java.io.PrintStream;

/**
 * Shows the start of embedded servers (which takes seconds) on standard error, so standard output
 * stays the result alone. Reaching an existing server is quick and says nothing unless it fails.
 */
final class StartupProgress implements StartupListener {

    private final PrintStream err;

    StartupProgress(PrintStream err) {
        this.err = err;
    }

    @Override
    public void progress(Service service, Stage stage, String message) {
        if (stage == Stage.STARTING || stage == Stage.NOTE) {
            err.println(message);
        }
    }
}
