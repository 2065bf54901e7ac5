package dev.racelab.engine;

/**
 * A worker's wait for something a server pushes to it (a Redis wake-up), as a schedule sees it.
 * In a free run the worker waits as it always would; in a scheduled run the wait is a settled
 * place ({@link Steering}) that ends when the message arrives or when the schedule lets time
 * pass, so that the order of events, not the machine's speed, decides what the worker finds.
 *
 * <p>Threads: the worker's own thread waits; any thread (its subscriber's) says what arrived.
 */
public interface PushedWait {

    /** A wait this long or longer is the worker's patience, not a look it takes again: only a message ends it. */
    long ENDLESS_NANOS = 60_000_000_000L;

    /** How a wait ended. */
    enum End {
        /** Something arrived (or was said to: look again). */
        ARRIVED,
        /** The schedule let the time waited for pass, on the workers' clock. */
        TIME_PASSED,
        /** No schedule orders the workers (any more): wait as a free run does. */
        FREE
    }

    /**
     * Waits for {@link #arrived} or, in a scheduled run, for the schedule to let {@code nanos}
     * pass; answers {@link End#FREE} at once when no schedule orders the workers.
     *
     * @throws InterruptedException if the thread is interrupted while waiting
     */
    End await(long nanos) throws InterruptedException;

    /** Something arrived for the worker: ends its wait now, or the next one at once. From any thread. */
    void arrived();

    /** The wait of a free run: nothing to wait for here. */
    PushedWait FREE = new PushedWait() {
        @Override
        public End await(long nanos) {
            return End.FREE;
        }

        @Override
        public void arrived() {
        }
    };
}
