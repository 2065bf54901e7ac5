package dev.racelab.engine;

import java.util.List;
import java.util.Optional;

/**
 * One run's worth of a lab: its fresh server state, its workers and its oracle.
 *
 * <p>The engine opens a scenario on the run's supervisor thread, asks it for one {@link LabWorker}
 * per worker, runs them, and then asks it to judge. {@link #close} removes what the run created
 * and is always called, whatever happened.
 */
public interface Scenario extends AutoCloseable {

    /** Creates worker {@code context.index()}'s script, with whatever connection it needs. */
    LabWorker worker(WorkerContext context) throws Exception;

    /**
     * An event of a worker on another machine, a class's participant's, which {@code worker}'s lane
     * stands for here ({@link Experiment#classReady}): what the oracle counts of a worker's own, it
     * counts of this one ({@link EventKind#OP_END}: an operation done). Nothing by default.
     */
    default void relayed(WorkerContext worker, EventKind kind, String subject, long value) {
    }

    /** The oracle: looks at the servers and the counts and gives the verdict. */
    Outcome judge(RunSummary summary) throws Exception;

    /**
     * Called when the run made no progress for the timeout while its workers are still there to
     * inspect: say whether they are deadlocked (and how) or stuck. Null lets the engine say STUCK.
     */
    default Outcome diagnose(RunSummary summary) throws Exception {
        return null;
    }

    /**
     * Called once a run has been quiet for a second (well before its timeout): a DEADLOCK outcome
     * if the workers are in a cycle of waits that nothing can break, which ends the run at once;
     * null otherwise, and the run waits on. Must not answer on a hunch: slow is not deadlocked.
     */
    default Outcome deadlock(RunSummary summary) throws Exception {
        return null;
    }

    /**
     * Since when, on the run's clock (as events' {@code nanos}), the worker that has waited longest
     * for its turn has been waiting; {@link Long#MAX_VALUE} when nobody waits (the default). For labs
     * whose workers can stay busy while getting nowhere: retrying in lockstep (a livelock), or one
     * passed over again and again while the others go on (starvation). Busy workers record events,
     * which the supervisor counts as progress; this is the lab's own measure. The supervisor asks
     * as the run goes, and a wait longer than the run's timeout (not counting time a worker was
     * halted at a gate) ends the run as no progress would: {@link #diagnose} names it.
     */
    default long waitingSince(RunSummary summary) throws Exception {
        return Long.MAX_VALUE;
    }

    /**
     * The fixtures the scenario holds, in the order it made them: they explain a failure in that
     * order ({@link #explain}) and are closed in the reverse ({@link #close}).
     */
    default List<Fixture> fixtures() {
        return List.of();
    }

    /** A sentence for a failure that ended the run: the first fixture's that knows it, else its message. */
    default String explain(Throwable failure) {
        for (Fixture fixture : fixtures()) {
            Optional<String> said = fixture.explain(failure);
            if (said.isPresent()) {
                return said.get();
            }
        }
        return failure.getMessage() == null ? failure.toString() : failure.getMessage();
    }

    /**
     * Who of the workers a server holds waiting (a lock wait, a blocking call), for a scheduled run
     * ({@link Steering}): by default, whoever any of its fixtures' servers holds.
     */
    default ServerWaits serverWaits() {
        return ServerWaits.of(fixtures());
    }

    /** What the servers themselves say, polled while the run is live. */
    default List<ServerObserver> observers() {
        return List.of();
    }

    /**
     * Removes what the run created: each fixture closed, the last made first, every one of them
     * even when one fails (what the first failure threw is thrown, the others added to it).
     */
    @Override
    default void close() throws Exception {
        List<Fixture> all = fixtures();
        Throwable first = null;
        for (int i = all.size() - 1; i >= 0; i--) {
            try {
                all.get(i).close();
            } catch (Throwable e) {
                // An Error too: the fixtures made before it are still closed.
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first instanceof Exception e) {
            throw e;
        } else if (first instanceof Error e) {
            throw e;
        } else if (first != null) {
            throw new IllegalStateException(first);
        }
    }
}
