package dev.racelab.engine;

/** A server a lab needs. */
public enum Service {
    POSTGRES("PostgreSQL"),
    REDIS("Redis");

    private final String displayName;

    Service(String displayName) {
        this.displayName = displayName;
    }

    public String displayName() {
        return displayName;
    }
}
