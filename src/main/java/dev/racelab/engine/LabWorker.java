package dev.racelab.engine;

/**
 * One worker's script, as a lab writes it. The engine calls {@link #operation} once per
 * operation on the worker's own thread, and {@link #close} on that thread when it is done.
 */
public interface LabWorker extends AutoCloseable {

    /** Performs operation {@code n} (0-based). Exceptions end the run with {@link Verdict#ERROR}. */
    void operation(int n) throws Exception;

    /**
     * Called from another thread when the run is stopped while this worker may be blocked on a
     * server: cancel what it is waiting for so its thread can end. Must not block.
     */
    default void abort() {
    }

    /**
     * Thrown by {@link #operation} when the worker has left the run for good and through no fault
     * of the run's: a class's participant that went away. Its lane says it left, it does no more
     * operations, and the run goes on without it.
     */
    final class Left extends Exception {
        public Left(String why) {
            super(why);
        }
    }

    /** Releases what the worker holds (its connection). */
    @Override
    default void close() throws Exception {
    }
}
