package dev.racelab.engine;

import java.util.SplittableRandom;

/**
 * What a lab's worker script sees of the engine: its identity, the gates, and the recorder.
 *
 * <p>Owned by one worker thread; only that thread may call these methods.
 */
public interface WorkerContext {

    /** 0-based index among the run's workers. */
    int index();

    /** The name students see: {@code client-3}. */
    String name();

    /** The actor id of this worker's lane. */
    int actor();

    /** This worker's random numbers, derived from the run's seed. */
    SplittableRandom random();

    /**
     * Passes a gate: halts here if the user said so, then sits out any delay set for it.
     *
     * @throws InterruptedException     if the thread is interrupted while waiting
     * @throws IllegalArgumentException for a {@linkplain Gate#isFault() fault gate}: use {@link #fault}
     */
    void gate(Gate gate) throws InterruptedException;

    /**
     * At a fault gate: whether the user armed the fault for this worker (set any rule there: a
     * delay or a breakpoint). If so the worker first passes the gate (halts if told to, sits out
     * the delay) and the caller then inflicts the fault; if not, nothing happens here, not even in
     * step mode.
     *
     * @throws IllegalArgumentException for a gate that is not a fault gate
     */
    boolean fault(Gate gate) throws InterruptedException;

    /**
     * Waits before trying again (a refused lock tried again, a queue polled): for {@code nanos} in
     * a free run. In a scheduled run the worker waits until the schedule lets time pass, so that
     * what it finds on trying again depends on the order of events, not on the machine's speed.
     *
     * @throws InterruptedException if the thread is interrupted while waiting
     */
    void backOff(long nanos) throws InterruptedException;

    /**
     * Lets {@code nanos} pass, for work that only takes time (sending an email, a producer keeping
     * its pace): slept in a free run; skipped in a scheduled run, where the order alone decides
     * what happens, as the delays at gates are.
     *
     * @throws InterruptedException if the thread is interrupted while waiting
     */
    void takeTime(long nanos) throws InterruptedException;

    /**
     * The time by the workers' clock, in nanoseconds from an arbitrary origin, for a worker's own
     * deadlines (its patience, a pace): in a scheduled run it moves only when the schedule lets time
     * pass for workers backing off, by the waits they asked for, at once.
     */
    long nanoTime();

    /**
     * How this worker waits for what a server pushes to it (a Redis wake-up): in a scheduled run
     * that wait is a place the schedule can see ({@link PushedWait}).
     */
    default PushedWait pushedWait() {
        return PushedWait.FREE;
    }

    /**
     * This worker is out of the game for good (it crashed, froze, went away) and passes no more
     * gates, though its thread stays until the others are done: a schedule counts it as finished.
     */
    default void doneActing() {
    }

    /** Moves this worker to {@code state}, concerning {@code subject} (may be null). */
    void state(ActorState state, String subject);

    default void state(ActorState state) {
        state(state, null);
    }

    /** The state this worker is in. */
    ActorState currentState();

    /** Records an event on this worker's lane and returns it (null if the log was full). */
    Event mark(EventKind kind, String subject, long value);

    /**
     * Records on this worker's lane an event that happened at {@code nanos} on the run's clock, on
     * another machine: a class's participant's worker, whose lane this one stands for. A state
     * change ({@link EventKind#STATE}) becomes this worker's state.
     */
    default Event relay(long nanos, EventKind kind, String subject, long value) {
        if (kind == EventKind.STATE) {
            state(ActorState.byOrdinal(value), subject);
            return null;
        }
        return mark(kind, subject, value);
    }

    /**
     * Says that what happens on this lane next happened at {@code nanos} on the run's clock, on
     * another machine (a class's participant's worker ending an operation): what the run records on
     * the lane from now on, its operations' ends included, is put there, never before what the lane
     * already shows. Nothing by default.
     */
    default void relayedAt(long nanos) {
    }

    /** Records a violation on this worker's lane: the oracle saw an invariant break here. */
    default Event violation(String name, long amount) {
        return mark(EventKind.VIOLATION, name, amount);
    }

    /** Whether the run is stopping; long loops in a script should give up when it is. */
    boolean stopping();
}
