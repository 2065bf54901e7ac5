package dev.racelab.engine;

import java.util.Collection;
import java.util.Optional;
import java.util.Set;

/**
 * A scenario's share of a server for one run (its tables, its keys, its sessions): what it makes
 * of a failure its server caused, and how what it made is removed. A scenario lists its fixtures
 * ({@link Scenario#fixtures}); they explain a failure in that order and are closed in the reverse.
 */
public interface Fixture extends AutoCloseable {

    /** A sentence for {@code failure} if this fixture's server caused it; empty if not. */
    Optional<String> explain(Throwable failure);

    /** Of {@code workers} (by name), those this fixture's server holds waiting now ({@link ServerWaits}). */
    default Set<String> waiting(Collection<String> workers) throws Exception {
        return Set.of();
    }
}
