package dev.racelab.engine;

/** Where a run is in its life; the record says it too, by its events. */
public enum RunPhase {
    /** Made, not started. */
    READY,
    /** Started: the lab prepares its server state and connects the workers. */
    PREPARING,
    /** The workers run. */
    RUNNING,
    /** Step mode: the workers halt at every gate. */
    PAUSED,
    /** The workers are being released and closed. */
    STOPPING,
    /** Over; the outcome is known. */
    ENDED;

    /** Whether a run in this phase may still change. */
    public boolean live() {
        return this == PREPARING || this == RUNNING || this == PAUSED || this == STOPPING;
    }
}
