package dev.racelab.labs.replicaread;

import dev.racelab.backend.BackendException;
import dev.racelab.backend.Postgres;
import dev.racelab.engine.ServerWatch;

import java.sql.SQLException;
import java.util.Optional;

/**
 * The standby, as one of the run's servers: asked whether it answers when the workers stall, and
 * named when a worker's session on it is lost. A worker wraps what its standby session throws in
 * {@link Lost}, so that a failure there is never blamed on the primary.
 */
final class StandbyWatch implements ServerWatch.Check {

    /** A failure of a worker's session on the standby. */
    static final class Lost extends SQLException {
        Lost(SQLException cause) {
            super(cause.getMessage(), cause.getSQLState(), cause);
        }
    }

    private final Postgres standby;

    StandbyWatch(Postgres standby) {
        this.standby = standby;
    }

    @Override
    public Optional<String> trouble() {
        try {
            standby.probe();
            return Optional.empty();
        } catch (BackendException e) {
            return Optional.of("the standby: " + e.getMessage());
        }
    }

    @Override
    public Optional<String> lost(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof Lost lost) {
                return Optional.of(standby.lostSession(lost.getCause()).map(words -> "the standby: " + words)
                        .orElse("the standby (" + standby.describe() + ") failed: " + lost.getMessage()));
            }
        }
        return Optional.empty();
    }
}
