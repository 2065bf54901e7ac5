package dev.racelab.engine;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The servers a run's lab depends on, each with a way to ask whether it still answers. A fixture
 * adds its server when it opens; the run asks when its workers have made no progress for its
 * timeout, so a server that stopped answering ends the run as an error that names it, not as a
 * puzzling STUCK.
 */
public final class ServerWatch {

    /** Asks one server whether it answers, within a few seconds. */
    @FunctionalInterface
    public interface Check {
        /** A sentence naming the server and why it does not answer; empty if it answers. */
        Optional<String> trouble();
    }

    private final List<Check> checks = new CopyOnWriteArrayList<>();

    /** Adds a server to ask. */
    public void watch(Check check) {
        checks.add(check);
    }

    /** The first server that does not answer, in words; empty if every one does (or none is watched). */
    public Optional<String> trouble() {
        for (Check check : checks) {
            Optional<String> trouble = check.trouble();
            if (trouble.isPresent()) {
                return trouble;
            }
        }
        return Optional.empty();
    }
}
