package dev.racelab.engine;

/** A server a lab needs. */
public enum Service {
    POSTGRES("PostgreSQL", true),
    REDIS("Redis", true),
    /**
     * A PostgreSQL primary with one hot standby replicating through a relay RaceLab owns: RaceLab's
     * own pair of servers, started for the labs that need it, never the shared one.
     */
    PG_STANDBY("PostgreSQL primary and standby", false),
    /**
     * Two Redis servers, a primary and its replica, watched by three Sentinels that fail over,
     * each server behind a relay RaceLab owns: RaceLab's own, never the shared Redis.
     */
    REDIS_SENTINEL("Redis with Sentinels", false);

    private final String displayName;
    private final boolean shared;

    Service(String displayName, boolean shared) {
        this.displayName = displayName;
        this.shared = shared;
    }

    /**
     * Whether this is one of the servers every lab may share (started with the window, named by
     * {@code --pg-url} and {@code --redis-url}), rather than a topology a lab has to itself.
     */
    public boolean shared() {
        return shared;
    }

    public String displayName() {
        return displayName;
    }
}
