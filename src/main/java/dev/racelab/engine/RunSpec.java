package dev.racelab.engine;

import java.time.Duration;

/**
 * Everything that decides how a run goes, before it starts.
 *
 * @param strategy the strategy's id
 * @param workers  number of workers
 * @param ops      operations per worker
 * @param gates    delays and breakpoints
 * @param seed     seed for random delays and anything random in the lab
 * @param timeout  how long the run may go without progress before it is judged deadlocked or stuck
 * @param stepMode start with every worker halting at every gate
 * @param observe  poll the servers' own view onto server lanes while the run is live
 */
public record RunSpec(String strategy, int workers, int ops, GatePlan gates, long seed, Duration timeout,
                      boolean stepMode, boolean observe) {

    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);

    public RunSpec {
        if (workers < 1) {
            throw new IllegalArgumentException("a run needs at least one worker");
        }
        if (ops < 1) {
            throw new IllegalArgumentException("each worker needs at least one operation");
        }
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("the timeout must be positive");
        }
    }

    /** The lab's defaults: its broken strategy, no gates, seed 1. */
    public static RunSpec defaults(Lab lab) {
        return new RunSpec(lab.defaultStrategy().id(), lab.defaultWorkers(), lab.defaultOps(), GatePlan.NONE, 1,
                DEFAULT_TIMEOUT, false, false);
    }

    public RunSpec withStrategy(String id) {
        return new RunSpec(id, workers, ops, gates, seed, timeout, stepMode, observe);
    }

    public RunSpec withWorkers(int n) {
        return new RunSpec(strategy, n, ops, gates, seed, timeout, stepMode, observe);
    }

    public RunSpec withOps(int n) {
        return new RunSpec(strategy, workers, n, gates, seed, timeout, stepMode, observe);
    }

    public RunSpec withGates(GatePlan plan) {
        return new RunSpec(strategy, workers, ops, plan, seed, timeout, stepMode, observe);
    }

    public RunSpec withSeed(long value) {
        return new RunSpec(strategy, workers, ops, gates, value, timeout, stepMode, observe);
    }

    public RunSpec withTimeout(Duration value) {
        return new RunSpec(strategy, workers, ops, gates, seed, value, stepMode, observe);
    }

    public RunSpec withStepMode(boolean on) {
        return new RunSpec(strategy, workers, ops, gates, seed, timeout, on, observe);
    }

    public RunSpec withObserve(boolean on) {
        return new RunSpec(strategy, workers, ops, gates, seed, timeout, stepMode, on);
    }
}
