package dev.racelab.engine.explore;

import dev.racelab.engine.Chooser;
import dev.racelab.engine.Clock;
import dev.racelab.engine.Experiment;
import dev.racelab.engine.Gate;
import dev.racelab.engine.GatePlan;
import dev.racelab.engine.GateRule;
import dev.racelab.engine.Outcome;
import dev.racelab.engine.Recorder;
import dev.racelab.engine.Run;
import dev.racelab.engine.RunRecord;
import dev.racelab.engine.RunSpec;
import dev.racelab.engine.Schedule;
import dev.racelab.engine.Steering;
import dev.racelab.engine.Verdict;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * Runs a lab's schedules, each on fresh server state, and shrinks the simplest failure: the
 * interleavings of its workers at their gates, on the real servers ({@link Steering}).
 *
 * <p>Under exploration the lab's delays are dropped (they only stretch time); a fault gate armed by
 * the user stays armed, and the switches stay. Each schedule is a {@link Run} of its own.
 *
 * <p>Threads: {@link #explore} runs on the caller's thread and blocks; {@link #cancel} from any.
 */
public final class Explorer {

    /** Failing schedules kept in the report; the rest are counted. */
    public static final int KEPT_FAILURES = 200;

    /**
     * What to explore, and for how long.
     *
     * @param method      how schedules are picked
     * @param preemptions the bound for {@link Method#BOUNDED}
     * @param depth       PCT's depth
     * @param seed        for {@link Method#PCT} and {@link Method#RANDOM}
     * @param schedules   the most schedules to run
     * @param time        the longest to run them (shrinking comes after)
     * @param shrinkTime  the longest to spend shrinking
     */
    public record Settings(Method method, int preemptions, int depth, long seed, long schedules, Duration time,
                           Duration shrinkTime) {
    }

    /** Told of every schedule as it ends, on the exploring thread. */
    public interface Listener {
        void ran(Found schedule, RunRecord record);

        /** Shrinking began from {@code failure}. */
        default void shrinking(Found failure) {
        }
    }

    /** One schedule's run. */
    record Ran(Found found, RunRecord record, List<Steering.Step> steps) {
    }

    private final Experiment lab;
    private final RunSpec spec;
    private final Clock clock;
    private final Consumer<Run> starting;
    private final Object lock = new Object();
    private volatile boolean cancelled;
    private Run current;
    private int index;

    /**
     * @param spec     the run to explore: its strategy, workers, operations, switches and armed faults
     * @param starting told of each run before it starts (to describe its servers)
     */
    public Explorer(Experiment lab, RunSpec spec, Clock clock, Consumer<Run> starting) {
        this.lab = lab;
        this.spec = explored(lab, spec);
        this.clock = clock;
        this.starting = starting;
    }

    /** {@code spec} as explored: no delays, armed fault gates kept armed, no schedule of its own. */
    public static RunSpec explored(Experiment lab, RunSpec spec) {
        GatePlan plan = GatePlan.NONE;
        for (Gate gate : lab.gates()) {
            if (!gate.isFault()) {
                continue;
            }
            for (int w = 0; w < spec.workers(); w++) {
                if (!spec.gates().rule(gate.id(), w).isPass()) {
                    plan = plan.with(gate.id(), w, GateRule.BREAKPOINT);
                }
            }
        }
        return spec.withGates(plan).withStepMode(false).withObserve(false).withSchedule(Schedule.NONE);
    }

    /** The spec each schedule runs with. */
    public RunSpec spec() {
        return spec;
    }

    /** Stops the exploration after the schedule in progress, which is stopped too; what was found is kept. */
    public void cancel() {
        Run run;
        synchronized (lock) {
            cancelled = true;
            run = current;
        }
        if (run != null) {
            run.stop();
        }
    }

    /** Runs schedules as {@code settings} say, then shrinks the simplest failure. */
    public Exploration explore(Settings settings, Listener listener) throws InterruptedException {
        Search search = search(settings);
        Map<Verdict, Integer> outcomes = new EnumMap<>(Verdict.class);
        Map<String, Integer> headlines = new LinkedHashMap<>();
        List<Found> failing = new ArrayList<>();
        int failingCount = 0;
        Found simplest = null;
        int[] passages = new int[0];
        long start = System.nanoTime();
        long firstFailure = -1;
        String stoppedBy = null;
        String serverFailure = null;
        boolean exhausted = false;
        int schedules = 0;
        while (true) {
            if (cancelled) {
                stoppedBy = "cancelled";
                break;
            }
            Chooser chooser = search.next();
            if (chooser == null) {
                exhausted = true;
                break;
            }
            if (schedules >= settings.schedules()) {
                stoppedBy = "schedules";
                break;
            }
            if (System.nanoTime() - start >= settings.time().toNanos()) {
                stoppedBy = "time";
                break;
            }
            Ran ran = run(chooser, spec);
            if (ran == null || cancelled) {
                // Stopped part way: what it did is no schedule's outcome.
                stoppedBy = "cancelled";
                break;
            }
            if (ran.record().serverFailure() != null) {
                serverFailure = ran.record().serverFailure();
                stoppedBy = "server";
                break;
            }
            search.ran(ran.steps());
            schedules++;
            Found found = ran.found();
            if (passages.length == 0) {
                passages = found.schedule().passagesPerWorker(spec.workers());
            }
            outcomes.merge(found.verdict(), 1, Integer::sum);
            headlines.merge(found.headline(), 1, Integer::sum);
            if (found.verdict() != Verdict.SAFE) {
                failingCount++;
                if (firstFailure < 0) {
                    firstFailure = System.nanoTime() - start;
                }
                if (failing.size() < KEPT_FAILURES) {
                    failing.add(found);
                }
                // An ERROR says the run broke, not how the lab fails: it is counted, never shrunk.
                if (found.verdict() != Verdict.ERROR && found.simplerThan(simplest)) {
                    simplest = found;
                }
            }
            listener.ran(found, ran.record());
        }
        long elapsed = System.nanoTime() - start;
        if (exhausted && search.diverged() > 0) {
            // The tree changed under the search: it ended, but its count is not the space's.
            exhausted = false;
            stoppedBy = "diverged";
        }
        Exploration.Shrunk shrunk = null;
        if (simplest != null && serverFailure == null && !cancelled) {
            listener.shrinking(simplest);
            boolean provedBySearch = exhausted && settings.method().enumerates();
            shrunk = new Shrinker(this, settings.shrinkTime()).shrink(simplest, provedBySearch);
        }
        return new Exploration(lab.id(), spec.strategy(), settings.method(),
                settings.method() == Method.BOUNDED ? settings.preemptions() : null, passages,
                exhausted && settings.method().enumerates() ? Long.valueOf(schedules) : null, exhausted, schedules,
                outcomes, headlines, List.copyOf(failing), failingCount, elapsed, firstFailure, search.diverged(),
                exhausted ? null : stoppedBy, serverFailure, shrunk);
    }

    private Search search(Settings settings) {
        return switch (settings.method()) {
            case ALL -> new DepthFirst(Integer.MAX_VALUE);
            case BOUNDED -> new DepthFirst(settings.preemptions());
            case RANDOM -> new RandomWalk(settings.seed());
            case PCT -> new Pct(settings.seed(), spec.workers(), settings.depth(),
                    spec.workers() * spec.ops() * Math.max(1, lab.gates().size()));
        };
    }

    /**
     * Runs one schedule, chosen by {@code chooser}, with {@code settings}; waits for its outcome.
     * Null if the exploration was cancelled before it started.
     */
    Ran run(Chooser chooser, RunSpec settings) throws InterruptedException {
        Run run = new Run(lab, settings, clock, Recorder.DEFAULT_CAPACITY, chooser);
        starting.accept(run);
        synchronized (lock) {
            if (cancelled) {
                return null;
            }
            current = run;
            run.start();
        }
        try {
            Outcome outcome = run.awaitOutcome(settings.timeout().multipliedBy(3).plusSeconds(60));
            List<Steering.Step> steps = run.steering().steps();
            Schedule schedule = run.steering().schedule();
            Found found = new Found(index++, schedule, Search.preemptions(steps), outcome.verdict(),
                    outcome.headline(), Interleaving.of(run.record()));
            return new Ran(found, run.record(), steps);
        } catch (TimeoutException e) {
            run.stop();
            throw new IllegalStateException("a schedule's run did not end within "
                    + settings.timeout().multipliedBy(3).plusSeconds(60).toSeconds() + " s", e);
        } finally {
            synchronized (lock) {
                current = null;
            }
        }
    }

    /** Follows {@code schedule} passage for passage, as a recording of it would be run again. */
    Ran follow(Schedule schedule) throws InterruptedException {
        return run(null, spec.withSchedule(schedule));
    }

    boolean cancelled() {
        return cancelled;
    }
}
