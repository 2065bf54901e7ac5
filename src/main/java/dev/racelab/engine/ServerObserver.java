package dev.racelab.engine;

import java.util.List;

/**
 * Reads a server's own view of the run (its lock table, a row, a Redis list) and records it on
 * server lanes. The engine polls every observer from one thread while the run is live.
 */
public interface ServerObserver extends AutoCloseable {

    /**
     * A {@code SERVER_VALUE} of this says its name no longer applies (a server once "primary" is
     * now a replica): the lane stops showing it.
     */
    long GONE = Long.MIN_VALUE;
    /** A {@code SERVER_VALUE} of this shows its name alone, a state rather than a number ("down"). */
    long NAME_ONLY = Long.MIN_VALUE + 1;

    /** The lanes this observer writes to, in order, e.g. {@code pg_locks}, {@code counter row}. */
    List<String> lanes();

    /**
     * Opens what the observer reads through (its connection), before the workers start, so the
     * first read comes at once when they do. A poll still opens it if this was not called.
     */
    default void connect() throws Exception {
    }

    /**
     * Reads the server once and records what changed since the last poll.
     *
     * @param sink records on this observer's lanes; lane numbers index {@link #lanes()}
     */
    void poll(LaneSink sink) throws Exception;

    @Override
    default void close() throws Exception {
    }

    /**
     * Cuts what the observer reads through at once, without asking the server anything: for a
     * server that stopped answering, so that a read blocked on it ends now rather than at its
     * bound. Called from another thread than the observer's; followed by {@link #close}.
     */
    default void abort() throws Exception {
    }

    /** Where an observer records. */
    interface LaneSink {
        Event record(int lane, EventKind kind, String subject, long value);

        /** The actor id of the worker named {@code name}, or -1 if no worker of this run has it. */
        int workerActor(String name);
    }
}
