package dev.racelab.engine;

import java.util.Optional;

/**
 * A scenario's share of a server for one run (its tables, its keys, its sessions): what it makes
 * of a failure its server caused, and how what it made is removed. A scenario lists its fixtures
 * ({@link Scenario#fixtures}); they explain a failure in that order and are closed in the reverse.
 */
public interface Fixture extends AutoCloseable {

    /** A sentence for {@code failure} if this fixture's server caused it; empty if not. */
    Optional<String> explain(Throwable failure);

    /** What this fixture's server says of the workers' waits, for a scheduled run ({@link ServerWaits}). */
    default ServerWaits waits() {
        return ServerWaits.NONE;
    }
}
