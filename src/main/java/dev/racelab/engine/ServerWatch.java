package dev.racelab.engine;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The servers a run's lab depends on, each able to say whether it still answers and whether a
 * failure was its doing. A fixture adds its server when it opens. The run asks when its workers
 * have made no progress for its timeout ({@link #trouble}), and when something of the run failed
 * ({@link #lost}): either way a server that failed the run ends it as an error that names the
 * server, on the record as a server failure ({@link RunRecord#serverFailure}), not as a puzzling
 * STUCK or a lab's error.
 */
public final class ServerWatch {

    /** One server of a run. */
    @FunctionalInterface
    public interface Check {
        /** Asks the server, within a few seconds: a sentence naming it and why it does not answer; empty if it answers. */
        Optional<String> trouble();

        /**
         * Whether {@code failure} is this server ending or losing the run's session (a crash, a
         * restart, a terminated backend, a connection broken mid-statement), or refusing the run
         * as it stands (someone else's table where the lab's goes): a sentence naming the server
         * and the cause; empty for any other failure. Asks the server nothing.
         */
        default Optional<String> lost(Throwable failure) {
            return Optional.empty();
        }
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

    /** The server that {@code failure} says ended or lost the run's session, in words; empty if none did. */
    public Optional<String> lost(Throwable failure) {
        for (Check check : checks) {
            Optional<String> lost = check.lost(failure);
            if (lost.isPresent()) {
                return lost;
            }
        }
        return Optional.empty();
    }
}
