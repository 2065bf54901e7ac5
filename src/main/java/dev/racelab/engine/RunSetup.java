package dev.racelab.engine;

import java.util.function.BooleanSupplier;

/**
 * What a lab needs to open a scenario.
 *
 * @param runId    short id, unique among runs sharing a server; scopes rows and keys of this run
 * @param strategy the strategy the workers follow: one of the lab's own constants
 * @param workers  number of workers
 * @param ops      operations per worker
 * @param seed     seed for anything random in the lab
 * @param switches the lab's own settings for this run
 * @param threads  where the lab gets any thread it needs (a subscriber, a lease keeper, a pool's
 *                 housekeeper): named, and with a handler that records its failure in the run
 * @param servers  where the lab's fixtures put the servers they use, so the run can ask them
 *                 whether they still answer when its workers stall
 * @param stopping whether the run was asked to stop: a lab that waits while it opens (for a
 *                 lock another program holds) asks it, and stops waiting when it is true
 * @param joined   whether this is a class's participant's run: another run (the class's host's)
 *                 made its rows and keys and removes them; its fixtures neither seed nor forget them
 * @param firstWorker  the class's index of this run's first worker (0 but in a participant's run)
 * @param classWorkers the workers of the whole run: of every participant in a class, else {@code workers}
 */
public record RunSetup(String runId, Strategy strategy, int workers, int ops, long seed, SwitchValues switches,
                       RunThreads threads, ServerWatch servers, BooleanSupplier stopping, boolean joined,
                       int firstWorker, int classWorkers) {

    /** A setup of a run of its own, neither a class's host's nor a participant's. */
    public RunSetup(String runId, Strategy strategy, int workers, int ops, long seed, SwitchValues switches,
                    RunThreads threads, ServerWatch servers, BooleanSupplier stopping) {
        this(runId, strategy, workers, ops, seed, switches, threads, servers, stopping, false, 0, workers);
    }

    /** A setup for a run that is never asked to stop while its lab opens (tests that open a lab themselves). */
    public RunSetup(String runId, Strategy strategy, int workers, int ops, long seed, SwitchValues switches,
                    RunThreads threads, ServerWatch servers) {
        this(runId, strategy, workers, ops, seed, switches, threads, servers, () -> false);
    }

    /**
     * This setup, for a class's participant: run {@code classRun}'s rows and keys, which its host
     * made; its workers are the class's from {@code first} on, of {@code classWorkers} in all.
     */
    public RunSetup joining(String classRun, int first, int classWorkers) {
        return new RunSetup(classRun, strategy, workers, ops, seed, switches, threads, servers, stopping, true, first,
                classWorkers);
    }

    /** Worker {@code index}'s place among the whole run's workers: a class's, in a participant's run. */
    public int classIndex(int index) {
        return firstWorker + index;
    }

    /** The value of the lab's switch {@code sw} in this run. */
    public <T> T get(Switch<T> sw) {
        return switches.get(sw);
    }
}
