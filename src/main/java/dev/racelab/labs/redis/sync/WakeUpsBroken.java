package dev.racelab.labs.redis.sync;

/**
 * A client was waiting for a wake-up that can no longer come: its subscriber connection failed,
 * or it was aborted because the run is stopping.
 */
public final class WakeUpsBroken extends RuntimeException {
    WakeUpsBroken(String reason) {
        super(reason);
    }
}
