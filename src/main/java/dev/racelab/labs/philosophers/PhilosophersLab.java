package dev.racelab.labs.philosophers;

import dev.racelab.backend.Backends;
import dev.racelab.engine.Gate;
import dev.racelab.engine.Run;
import dev.racelab.engine.RunSetup;
import dev.racelab.engine.Scenario;
import dev.racelab.engine.Strategy;
import dev.racelab.engine.view.LabView;
import dev.racelab.labs.support.LabProfile;
import dev.racelab.labs.support.RedisLab;

import java.util.List;

/**
 * The dining philosophers: N philosophers round a table, a fork between each pair, and a
 * philosopher needs both neighbouring forks to eat. Each fork is a Redis semaphore with one
 * permit (the hardened construct, so Redis itself records who holds each fork and who waits).
 *
 * <p>Philosopher {@code k} has fork {@code k} on the left and fork {@code k+1} on the right (the
 * last philosopher's right fork is fork 1). Philosophers think for 1–20 ms and eat for 1–5 ms
 * (drawn from the run's seed) on top of any delay set at those gates. Taking the left fork first
 * is fine until all of them do it at once: then each holds one fork and waits for its
 * neighbour's, for ever. A delay at {@code between-forks} longer than the thinking makes that
 * happen every time.
 */
public final class PhilosophersLab extends RedisLab {

    static final Gate THINKING = Gate.stretching("thinking",
            "thinking, holding no fork, before getting hungry");
    static final Gate BETWEEN_FORKS = new Gate("between-forks",
            "holding the first fork, before reaching for the second");
    static final Gate EATING = Gate.stretching("eating",
            "eating, holding both forks");
    static final Gate BACKOFF = new Gate("backoff",
            "try-backoff only: the second fork was taken, the first is back on the table; before trying again "
                    + "(a fixed delay keeps everyone in lockstep, a range breaks it)");

    static final Strategy NAIVE = new Strategy("naive", "Left, then right",
            "take the left fork, then the right: if everyone holds a left fork at once, each waits for its "
                    + "neighbour for ever", true);
    static final Strategy ORDERED = new Strategy("ordered", "Lower fork first",
            "take the lower-numbered fork first: the last philosopher reaches right first, so no cycle of "
                    + "waiting can close", false);
    static final Strategy WAITER = new Strategy("waiter", "A waiter",
            "a waiter (a semaphore with N-1 seats) lets at most N-1 philosophers reach for forks at once: one "
                    + "of them always gets both", false);
    static final Strategy TRY_BACKOFF = new Strategy("try-backoff", "Try, put back, retry",
            "take the left fork, try the right; if it is taken put the left one back, back off and retry: no "
                    + "deadlock, but philosophers backing off alike can livelock", false);

    public PhilosophersLab(Backends backends) {
        super(backends, new LabProfile("dining-philosophers", "Dining philosophers",
                "Philosophers share forks kept in Redis; all grabbing the left fork first deadlocks the table.",
                SERVICES, List.of(NAIVE, ORDERED, WAITER, TRY_BACKOFF),
                List.of(THINKING, BETWEEN_FORKS, EATING, BACKOFF),
                new LabProfile.Crew("philosopher", 5, 2, MOST_WORKERS), 10));
    }

    @Override
    public Scenario open(RunSetup setup) throws Exception {
        return new PhilosophersScenario(backends.redis(), setup);
    }

    @Override
    public LabView view(Run run) {
        return new TableView(run);
    }
}
