package dev.racelab.engine;

import java.time.Duration;

/**
 * Everything that decides how a run goes, before it starts; a recording keeps it, so a run can be
 * made again with the same settings.
 *
 * @param strategy the strategy's id
 * @param workers  number of workers
 * @param ops      operations per worker
 * @param gates    delays and breakpoints at the start (the user may change them while it runs)
 * @param seed     seed for random delays and anything random in the lab
 * @param timeout  how long the run may go without progress before it is judged deadlocked or stuck
 * @param stepMode start with every worker halting at every gate
 * @param observe  poll the servers' own view onto server lanes while the run is live
 * @param switches the lab's own settings
 * @param schedule the order in which workers pass their gates ({@link Steering}), or {@link Schedule#NONE}
 */
public record RunSpec(String strategy, int workers, int ops, GatePlan gates, long seed, Duration timeout,
                      boolean stepMode, boolean observe, SwitchValues switches, Schedule schedule) {

    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);

    /** A run whose workers go as the threads and servers take them. */
    public RunSpec(String strategy, int workers, int ops, GatePlan gates, long seed, Duration timeout,
                   boolean stepMode, boolean observe, SwitchValues switches) {
        this(strategy, workers, ops, gates, seed, timeout, stepMode, observe, switches, Schedule.NONE);
    }

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
        if (schedule == null) {
            schedule = Schedule.NONE;
        }
    }

    public RunSpec withStrategy(String id) {
        return new RunSpec(id, workers, ops, gates, seed, timeout, stepMode, observe, switches, schedule);
    }

    public RunSpec withWorkers(int n) {
        return new RunSpec(strategy, n, ops, gates, seed, timeout, stepMode, observe, switches, schedule);
    }

    public RunSpec withOps(int n) {
        return new RunSpec(strategy, workers, n, gates, seed, timeout, stepMode, observe, switches, schedule);
    }

    public RunSpec withGates(GatePlan plan) {
        return new RunSpec(strategy, workers, ops, plan, seed, timeout, stepMode, observe, switches, schedule);
    }

    public RunSpec withSeed(long value) {
        return new RunSpec(strategy, workers, ops, gates, value, timeout, stepMode, observe, switches, schedule);
    }

    public RunSpec withTimeout(Duration value) {
        return new RunSpec(strategy, workers, ops, gates, seed, value, stepMode, observe, switches, schedule);
    }

    public RunSpec withStepMode(boolean on) {
        return new RunSpec(strategy, workers, ops, gates, seed, timeout, on, observe, switches, schedule);
    }

    public RunSpec withObserve(boolean on) {
        return new RunSpec(strategy, workers, ops, gates, seed, timeout, stepMode, on, switches, schedule);
    }

    public RunSpec withSwitches(SwitchValues values) {
        return new RunSpec(strategy, workers, ops, gates, seed, timeout, stepMode, observe, values, schedule);
    }

    public RunSpec withSchedule(Schedule order) {
        return new RunSpec(strategy, workers, ops, gates, seed, timeout, stepMode, observe, switches, order);
    }

    public <T> RunSpec with(Switch<T> sw, T value) {
        return withSwitches(switches.with(sw, value));
    }
}
