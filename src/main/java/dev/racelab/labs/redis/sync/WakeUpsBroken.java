package dev.racelab.labs.redis.sync;

/**
 * A client was waiting for a wake-up that can no longer come: its subscriber connection failed
 * (the cause is then the connection's failure, so the run knows the server broke it), or it was
 * aborted because the run is stopping (no cause).
 */
public final class WakeUpsBroken extends RuntimeException {
    WakeUpsBroken(String reason, Throwable cause) {
        super(reason, cause);
    }
}
