package dev.racelab.engine.explore;

import dev.racelab.engine.RunRecord;
import dev.racelab.engine.Verdict;

import java.util.List;
import java.util.Map;

/**
 * What an exploration found.
 *
 * @param lab            the lab's id
 * @param strategy       the strategy explored
 * @param method         how schedules were picked
 * @param bound          the preemption bound ({@link Method#BOUNDED}), else null
 * @param passages       gate passages per worker in the first schedule (they may vary with the schedule)
 * @param space          the schedules in the space, counted as the leaves of the search tree; null
 *                       unless an enumerating method exhausted it
 * @param exhausted      whether every schedule of the space ran
 * @param schedules      how many schedules ran
 * @param outcomes       verdict → how many schedules ended so
 * @param headlines      outcome headline → how many schedules ended so
 * @param failing        the schedules that did not end SAFE, in the order they ran (the first
 *                       {@link Explorer#KEPT_FAILURES} of them)
 * @param failingCount   how many schedules did not end SAFE
 * @param elapsedNanos   how long the schedules took, without shrinking
 * @param firstFailureNanos how long until the first failing schedule ended, or -1
 * @param diverged       schedules whose run went otherwise than the same choices went before
 * @param stoppedBy      why it stopped before the space was exhausted ("schedules", "time",
 *                       "cancelled", "server"), or null
 * @param serverFailure  a server that failed a run, in words, or null
 * @param shrunk         the simplest failure, shrunk, or null when nothing failed
 */
public record Exploration(String lab, String strategy, Method method, Integer bound, int[] passages, Long space,
                          boolean exhausted, int schedules, Map<Verdict, Integer> outcomes,
                          Map<String, Integer> headlines, List<Found> failing, int failingCount, long elapsedNanos,
                          long firstFailureNanos, int diverged, String stoppedBy, String serverFailure,
                          Shrunk shrunk) {

    /** Schedules per second, over the time they took. */
    public double schedulesPerSecond() {
        return elapsedNanos <= 0 ? 0 : schedules * 1e9 / elapsedNanos;
    }

    /** The index of the first failing schedule, or null. */
    public Integer firstFailure() {
        return failing.isEmpty() ? null : failing.get(0).index();
    }

    /**
     * A failure shrunk.
     *
     * @param found      the schedule: fewest preemptions, then fewest passages, that fails as the original did
     * @param fewest     whether no schedule with fewer preemptions fails so (every one of them ran)
     * @param candidates how many schedules shrinking ran
     * @param confirmed  whether following its schedule again, passage for passage, ended the same way
     * @param record     that run again: its recording carries the schedule (null if it was stopped)
     */
    public record Shrunk(Found found, boolean fewest, int candidates, boolean confirmed, RunRecord record) {
    }
}
