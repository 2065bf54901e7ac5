package dev.racelab.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * One configuration run many times, each run on fresh state, one after another: for every
 * strategy asked, {@code runs} runs — at each delay of a {@link Sweep} when there is one — whose
 * verdicts and key figures sum up how likely the race is and how bad it gets.
 *
 * <p>{@link #run} works on the calling thread (a shell's background thread, the command line's
 * own) and returns the result; from any thread, {@link #cancel} stops the run in progress and ends
 * the batch with what ran before it (the window's Cancel), {@link #finish} stops it and ends the
 * batch with it counted (the command line's signal: the run stopped is recorded and summed up). A
 * run that a server failed ({@link RunRecord#serverFailure}, or what {@link #endedBy} finds) ends
 * the batch too: the result names the server. The window's and the command line's batches and
 * sweeps are this one loop.
 */
public final class Batch {

    /** A run ended: how many of the batch's runs have, out of how many, the swept delay it ran with (or null), and its record. */
    @FunctionalInterface
    public interface Progress {
        void ran(int done, int total, Long delay, RunRecord record);
    }

    /** The runs of one strategy at one delay (null: no sweep). */
    public static final class Point {
        private final String strategy;
        private final Long delay;
        private final Map<Verdict, Integer> verdicts = new EnumMap<>(Verdict.class);
        private final List<Double> figures = new ArrayList<>();

        Point(String strategy, Long delay) {
            this.strategy = strategy;
            this.delay = delay;
        }

        private Point copy() {
            Point copy = new Point(strategy, delay);
            copy.verdicts.putAll(verdicts);
            copy.figures.addAll(figures);
            return copy;
        }

        public String strategy() {
            return strategy;
        }

        /** The swept gate's delay in ms, or null. */
        public Long delay() {
            return delay;
        }

        public Map<Verdict, Integer> verdicts() {
            return Collections.unmodifiableMap(verdicts);
        }

        /** The key figure of each run, in order. */
        public List<Double> figures() {
            return Collections.unmodifiableList(figures);
        }

        public int runs() {
            return figures.size();
        }

        /** Runs that ended in the lab's failure: RACE, DEADLOCK or STUCK (not SAFE, not an ERROR). */
        public int failed() {
            return verdicts.entrySet().stream().filter(e -> e.getKey() != Verdict.SAFE && e.getKey() != Verdict.ERROR)
                    .mapToInt(Map.Entry::getValue).sum();
        }

        /** The share of runs that failed, 0 to 1. */
        public double failureRate() {
            return runs() == 0 ? 0 : (double) failed() / runs();
        }

        void add(Outcome outcome, KeyFigure figure) {
            verdicts.merge(outcome.verdict(), 1, Integer::sum);
            figures.add(figure.of(outcome));
        }
    }

    /**
     * What a batch found: per strategy, its points in delay order.
     *
     * @param cancelled     whether {@link #cancel} ended it early
     * @param serverFailure the server that failed a run and ended the batch, in words, or null
     */
    public record Result(Map<String, List<Point>> points, int runs, boolean cancelled, String serverFailure) {
    }

    private final Experiment lab;
    private final RunSpec spec;
    private final List<String> strategies;
    private final int runs;
    private final Sweep sweep;
    private final Clock clock;
    private final Consumer<Run> starting;
    private volatile boolean cancelled;
    private volatile boolean finishing;
    private boolean observe;
    private Function<RunRecord, String> serverDown = RunRecord::serverFailure;
    private volatile Run current;
    /** What ran so far; the batch's thread adds to it, {@link #snapshot} copies it, both under this object's lock. */
    private final Map<String, List<Point>> points = new LinkedHashMap<>();
    private int done;

    /**
     * @param spec       the settings every run starts from (its strategy is replaced by each of {@code strategies})
     * @param strategies the strategies to run, each the same number of times
     * @param runs       runs per strategy (and per delay of the sweep)
     * @param sweep      a gate's delays to step through, or null
     * @param starting   told of each run as it starts (a shell may note the servers on its record)
     */
    public Batch(Experiment lab, RunSpec spec, List<String> strategies, int runs, Sweep sweep, Clock clock,
                 Consumer<Run> starting) {
        if (runs < 1 || strategies.isEmpty()) {
            throw new IllegalArgumentException("a batch runs at least one strategy at least once");
        }
        this.lab = lab;
        this.spec = spec.withObserve(false).withStepMode(false);
        this.strategies = List.copyOf(strategies);
        this.runs = runs;
        this.sweep = sweep;
        this.clock = clock;
        this.starting = starting;
    }

    /** Its runs observe their servers (a recorded batch's do, to be looked at); they do not unless asked. */
    public Batch observing(boolean on) {
        this.observe = on;
        return this;
    }

    /**
     * What says a server failed a run, in words, or null: the run's own record by default; a shell
     * may also ask the servers whether they still answer after a run that ended ERROR.
     */
    public Batch endedBy(Function<RunRecord, String> serverDown) {
        this.serverDown = serverDown;
        return this;
    }

    /** How many runs the whole batch makes. */
    public int total() {
        return strategies.size() * runs * (sweep == null ? 1 : sweep.delays().size());
    }

    /** Runs the batch on this thread; see the class comment. */
    public Result run(Progress progress) throws InterruptedException {
        List<Long> delays = sweep == null ? Collections.singletonList(null) : sweep.delays();
        KeyFigure figure = lab.keyFigure();
        String serverFailure = null;
        batch:
        for (Long delay : delays) {
            for (String strategy : strategies) {
                Point point = new Point(strategy, delay);
                synchronized (this) {
                    points.computeIfAbsent(strategy, s -> new ArrayList<>()).add(point);
                }
                RunSpec base = spec.withStrategy(strategy);
                RunSpec at = delay == null ? base : sweep.at(base, delay);
                for (int i = 0; i < runs; i++) {
                    if (cancelled || finishing) {
                        break batch;
                    }
                    Run run = new Run(lab, at.withSeed(at.seed() + i).withObserve(observe), clock);
                    starting.accept(run);
                    run.start();
                    // Known to cancel and finish once started (a run stopped before it starts cannot
                    // start); one that came meanwhile is caught here.
                    current = run;
                    if (cancelled || finishing) {
                        run.stop();
                    }
                    Outcome outcome = await(run);
                    current = null;
                    if (cancelled) {
                        // Stopped half-way by the cancel: not a run to count.
                        break batch;
                    }
                    int ran;
                    synchronized (this) {
                        point.add(outcome, figure);
                        ran = ++done;
                    }
                    progress.ran(ran, total(), delay, run.record());
                    serverFailure = serverDown.apply(run.record());
                    if (serverFailure != null || finishing) {
                        break batch;
                    }
                }
            }
        }
        return result(serverFailure);
    }

    /** What has run so far, as a result of its own (a copy): for a shell that shows a batch as it goes. */
    public synchronized Result snapshot() {
        return result(null);
    }

    /** A copy of the points, in delay order per strategy, without the ones a cancel left empty. */
    private synchronized Result result(String serverFailure) {
        Map<String, List<Point>> copy = new LinkedHashMap<>();
        points.forEach((strategy, list) -> {
            List<Point> ran = list.stream().filter(p -> p.runs() > 0).map(Point::copy).toList();
            if (!ran.isEmpty()) {
                copy.put(strategy, ran);
            }
        });
        return new Result(copy, done, cancelled, serverFailure);
    }

    /** Stops the run in progress and ends the batch with what ran before it; any thread. */
    public void cancel() {
        cancelled = true;
        Run run = current;
        if (run != null) {
            run.stop();
        }
    }

    /** Stops the run in progress and ends the batch once that run is counted; starts none after it; any thread. */
    public void finish() {
        finishing = true;
        Run run = current;
        if (run != null) {
            run.stop();
        }
    }

    private static Outcome await(Run run) throws InterruptedException {
        try {
            return run.awaitOutcome(Duration.ofHours(6));
        } catch (TimeoutException e) {
            run.stop();
            try {
                return run.awaitOutcome(Duration.ofMinutes(1));
            } catch (TimeoutException again) {
                throw new IllegalStateException("a run of the batch did not end within six hours");
            }
        }
    }
}
