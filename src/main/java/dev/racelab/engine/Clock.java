package dev.racelab.engine;

/**
 * Where the engine gets its time, and how it waits for time to pass.
 *
 * <p>Every timestamp in a recording and every gate delay goes through a clock, so engine tests
 * run on a {@link ManualClock} and never sleep. Times are nanoseconds on an arbitrary origin;
 * only differences mean anything.
 */
public interface Clock {

    /** The current time in nanoseconds. */
    long nanos();

    /** Blocks the calling thread for {@code nanos}; an interrupt ends the wait early. */
    void sleep(long nanos) throws InterruptedException;

    /** The machine's monotonic clock. */
    static Clock system() {
        return SystemClock.INSTANCE;
    }
}
