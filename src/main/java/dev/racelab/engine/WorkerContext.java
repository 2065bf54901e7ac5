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

    /** Moves this worker to {@code state}, concerning {@code subject} (may be null). */
    void state(ActorState state, String subject);

    default void state(ActorState state) {
        state(state, null);
    }

    /** The state this worker is in. */
    ActorState currentState();

    /** Records an event on this worker's lane and returns it (null if the log was full). */
    Event mark(EventKind kind, String subject, long value);

    /** Records a violation on this worker's lane: the oracle saw an invariant break here. */
    default Event violation(String name, long amount) {
        return mark(EventKind.VIOLATION, name, amount);
    }

    /** Whether the run is stopping; long loops in a script should give up when it is. */
    boolean stopping();
}
