package dev.racelab.engine;


import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A lab as the engine runs it: its {@link LabProfile} (what it is) and a way to {@link #open} one
 * run's worth of it (fresh server state, the workers' scripts, the oracle), with the settings a
 * run starts from. The engine knows labs only through this; what shows a lab's runs is added by
 * {@link dev.racelab.engine.lab.Lab}, the interface every lab implements.
 */
public interface Experiment {

    /** What the lab is: names, servers, strategies, gates, switches, workers. */
    LabProfile profile();

    /**
     * Whether a class can run this lab together: its scenario judges the events of other machines'
     * workers ({@link Scenario#relayed}), and a participant's run uses its host's rows ({@link
     * RunSetup#joined}). No by default.
     */
    default boolean classReady() {
        return false;
    }

    /** Opens a run: creates its server state fresh, ready for workers. */
    Scenario open(RunSetup setup) throws Exception;

    /**
     * The delays a run starts with unless the user changes them: the lab's default gate plan,
     * chosen so that its broken strategy shows its race with every other setting at its default.
     * The window's gates table shows them, the command line's {@code --delay} adds to them (a
     * delay of 0 clears one), and {@code list} names them. None unless a lab says otherwise.
     */
    default GatePlan presetGates() {
        return GatePlan.NONE;
    }

    /**
     * The number a batch of this lab's runs is summed up by (a histogram of it over the runs):
     * lost increments, stale writes applied, the longest wait. Its violations, summed, unless a
     * lab says otherwise.
     */
    default KeyFigure keyFigure() {
        return KeyFigure.VIOLATIONS;
    }

    /** The lab's defaults: its broken strategy, its preset gates, seed 1, every switch at its default. */
    default RunSpec defaults() {
        return new RunSpec(defaultStrategy().id(), defaultWorkers(), defaultOps(), presetGates(), 1,
                RunSpec.DEFAULT_TIMEOUT, false, false, SwitchValues.DEFAULTS);
    }

    /**
     * Whether a schedule may order this strategy's workers ({@link Steering}): false for a strategy
     * that orders them itself (the isolation lab's permutation, which a conductor plays).
     */
    default boolean schedulable(Strategy strategy) {
        return unexplorable().isEmpty();
    }

    /**
     * Why this lab will not run {@code spec} on the servers it has now, in words, or empty: checked
     * before any server is touched (a fault it inflicts only on servers of RaceLab's own, armed
     * where the user named the servers).
     */
    default java.util.Optional<String> refuses(RunSpec spec) {
        return java.util.Optional.empty();
    }

    /**
     * Why no schedule can order this lab's workers, in words, or empty: a lab whose race is with
     * something a schedule cannot step (replication, a failover, on the servers' own time).
     */
    default java.util.Optional<String> unexplorable() {
        return java.util.Optional.empty();
    }

    /**
     * How many workers an exploration takes unless told: the fewest that can show the race (two,
     * or the lab's fewest), so that the space of schedules is small enough to finish.
     */
    default int exploredWorkers() {
        return Math.max(minWorkers(), Math.min(2, maxWorkers()));
    }

    /**
     * How many operations each worker does in an exploration unless told: one, or as many as the
     * lab's race needs to show (a writer starved needs readers that come back).
     */
    default int exploredOps() {
        return 1;
    }

    // What follows reads the profile, so that callers need not.

    /** What the command line calls it: {@code counter}. */
    default String id() {
        return profile().id();
    }

    /** A title for the window's list: "Lost increments". */
    default String title() {
        return profile().title();
    }

    /** One line telling the lab's story. */
    default String story() {
        return profile().story();
    }

    /** The servers its workers talk to. */
    default Set<Service> services() {
        return profile().services();
    }

    /** Its strategies: broken ones first. */
    default List<? extends Strategy> strategies() {
        return profile().strategies();
    }

    /** The named points in the worker script where delays and breakpoints can be set. */
    default List<Gate> gates() {
        return profile().gates();
    }

    /** Its own settings beyond workers and operations. */
    default List<Switch<?>> switches() {
        return profile().switches();
    }

    /** What a worker is called: {@code client}, {@code philosopher}. Workers are {@code role-1 … role-N}. */
    default String workerRole() {
        return profile().crew().role();
    }

    default int defaultWorkers() {
        return profile().crew().usually();
    }

    default int defaultOps() {
        return profile().defaultOps();
    }

    /** The largest number of workers the lab supports. */
    default int maxWorkers() {
        return profile().crew().most();
    }

    /** The smallest number of workers that makes sense. */
    default int minWorkers() {
        return profile().crew().fewest();
    }

    /** The strategy a run uses when none is named: the first broken one. */
    default Strategy defaultStrategy() {
        return profile().defaultStrategy();
    }

    default Optional<Strategy> strategy(String id) {
        return profile().strategy(id);
    }

    default Optional<Gate> gate(String id) {
        return profile().gate(id);
    }

    /** The name of worker {@code index} (0-based): {@code client-1} for index 0. */
    default String workerName(int index) {
        return workerRole() + "-" + (index + 1);
    }

    /** The index of the worker called {@code name}, or -1. */
    default int workerIndex(String name, int workers) {
        String prefix = workerRole() + "-";
        if (!name.startsWith(prefix)) {
            return -1;
        }
        String number = name.substring(prefix.length());
        if (!number.matches("[0-9]{1,9}")) {
            return -1;
        }
        int n = Integer.parseInt(number);
        return n >= 1 && n <= workers ? n - 1 : -1;
    }
}
