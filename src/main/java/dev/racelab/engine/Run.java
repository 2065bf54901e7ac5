package dev.racelab.engine;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One run of a lab: its workers, gates and, as it goes, its {@link RunRecord}: the header, every
 * event, and at the end the {@link Outcome}.
 *
 * <p>A run is used once: {@link #start} it, {@link #pause}/{@link #resume}/{@link #step} it,
 * {@link #stop} it or let it finish; {@link #reset} gives a fresh run with the same settings.
 * Whatever the user does to a live run (pausing, stepping, changing the gates or the speed of
 * delays) is recorded too, so the record alone tells the whole story.
 *
 * <p><b>Threads.</b> Every thread of a run comes from its {@link RunThreads}: named, a daemon,
 * and with a handler that records its failure and ends the run with {@link Verdict#ERROR}. {@code
 * start} hands everything to a supervisor thread named after the lab: it opens the scenario (fresh
 * server state, one connection per worker), starts one thread per worker named after the worker
 * ({@code client-3}), watches for progress, failure, stop requests and stalls, and judges. Server
 * observers poll on their own thread. Control methods may be called from any thread and never
 * block on the servers. Whatever the supervisor meets, an {@link Error} from a lab included, the
 * run ends with an outcome.
 *
 * <p><b>Phases.</b> The phase and the event that records each change of it are changed together
 * ({@link RunPhases}), by the control methods and the supervisor alike.
 *
 * <p><b>Progress.</b> A run makes progress when a worker records something. What observers
 * report and what the engine notes does not count, so workers hanging on a silent server are
 * judged stuck at the timeout however busy the observers are. A lab whose workers can be busy
 * and still get nowhere (a livelock, a starving worker) says since when its longest waiting worker
 * has waited ({@link Scenario#waitingSince}); a wait longer than the timeout ends the run too.
 *
 * <p><b>Stopping.</b> Halted workers are released with an exception that unwinds their script,
 * blocked ones are interrupted and their server calls aborted; then every worker is closed and the
 * scenario removes what it created. The run waits at most {@link #TEARDOWN_MILLIS} in all for its
 * workers' threads to end, however many there are. A run that has ended holds no thread,
 * connection or lock it could release.
 */
public final class Run {

    /** Actor id of the run's own lane. */
    public static final int RUN_ACTOR = Actor.RUN_ID;
    /** The longest a stopping run waits for all its workers' threads together. */
    static final long TEARDOWN_MILLIS = 5_000;

    private static final long POLL_MILLIS = 20;
    static final long ABORT_AFTER_MILLIS = 250;

    private final Experiment lab;
    private final RunSpec spec;
    private final Strategy strategy;
    private final Clock clock;
    private final Recorder recorder;
    private final RunRecord record;
    private final GateKeeper gates;
    private final Threads runThreads;
    private final ServerWatch servers = new ServerWatch();
    private final String id;
    private final List<Actor> actors = new CopyOnWriteArrayList<>();
    private final List<WorkerHandle> workers = new ArrayList<>();
    private final WorkerThreads threads;
    private final AtomicReference<Failure> failure = new AtomicReference<>();
    private final CompletableFuture<Outcome> outcome = new CompletableFuture<>();
    /** Releases the workers one gate at a time in a chosen order; null when the run is not scheduled. */
    private final Steering steering;

    private final RunPhases phases;
    private volatile boolean stopRequested;
    private volatile boolean stopping;
    /** A deadlock the lab named before the timeout; read by the supervisor thread only. */
    private Outcome deadlock;
    private volatile long startNanos;
    private volatile long endNanos;

    public Run(Experiment lab, RunSpec spec, Clock clock) {
        this(lab, spec, clock, Recorder.DEFAULT_CAPACITY);
    }

    public Run(Experiment lab, RunSpec spec, Clock clock, int recorderCapacity) {
        this(lab, spec, clock, recorderCapacity, null);
    }

    /**
     * A run whose workers pass their gates one at a time in the order {@code chooser} picks
     * ({@link Steering}); a null chooser follows the spec's {@link RunSpec#schedule} if it has one.
     */
    public Run(Experiment lab, RunSpec spec, Clock clock, int recorderCapacity, Chooser chooser) {
        this.lab = lab;
        this.spec = spec;
        this.strategy = lab.strategy(spec.strategy()).orElseThrow(() -> new IllegalArgumentException(
                "lab " + lab.id() + " has no strategy '" + spec.strategy() + "'"));
        if (spec.workers() < lab.minWorkers() || spec.workers() > lab.maxWorkers()) {
            throw new IllegalArgumentException("lab " + lab.id() + " runs " + lab.minWorkers() + " to "
                    + lab.maxWorkers() + " workers, not " + spec.workers());
        }
        this.clock = clock;
        this.recorder = new Recorder(clock, recorderCapacity);
        this.record = new RunRecord(new RunHeader(lab.id(), spec, Instant.now()), recorder);
        this.gates = new GateKeeper(lab.gates(), spec.workers(), spec.gates(), clock);
        this.phases = new RunPhases(recorder, gates);
        this.runThreads = new Threads(this::threadFailed);
        this.id = HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt());
        addActor("run", Actor.Kind.RUN);
        for (int i = 0; i < spec.workers(); i++) {
            String name = lab.workerName(i);
            int actor = addActor(name, Actor.Kind.WORKER);
            workers.add(new WorkerHandle(i, name, actor, spec.seed(), recorder, gates, this::stopping));
        }
        this.threads = new WorkerThreads(workers, recorder, gates, spec.ops());
        Chooser order = chooser != null || spec.schedule().isEmpty() ? chooser
                : Chooser.following(spec.schedule(), true, lab::workerName);
        this.steering = order == null ? null : new Steering(gates, spec.workers(), order, lab::workerName,
                this::step, recorder, this::resume, spec.timeout().toNanos());
    }

    /** Gives the next lane to {@code name} and announces it in the record; returns its actor id. */
    private synchronized int addActor(String name, Actor.Kind kind) {
        int actorId = actors.size();
        actors.add(new Actor(actorId, name, kind));
        recorder.record(actorId, EventKind.ACTOR, name, kind.ordinal());
        return actorId;
    }

    public Experiment lab() {
        return lab;
    }

    public RunSpec spec() {
        return spec;
    }

    public Strategy strategy() {
        return strategy;
    }

    /** Short id scoping this run's rows and keys on shared servers. */
    public String id() {
        return id;
    }

    /** The run as a record: what views, the timeline, the command line and recordings read. */
    public RunRecord record() {
        return record;
    }

    public Recorder recorder() {
        return recorder;
    }

    /** The gates, for tests that wait for workers to halt; users change them through {@link #setPlan}. */
    public GateKeeper gates() {
        return gates;
    }

    public RunPhase phase() {
        return phases.now();
    }

    /** Everyone with a lane: the run, then the workers, then server lanes once the run started. */
    public List<Actor> actors() {
        return List.copyOf(actors);
    }

    /** Actor id of worker {@code index} (0-based). */
    public int workerActor(int index) {
        return workers.get(index).actor();
    }

    /** The passages of a scheduled run so far; null for a run that is not scheduled. */
    public Steering steering() {
        return steering;
    }

    /** Operations finished so far, summed over workers. */
    public long opsCompleted() {
        return workers.stream().mapToLong(WorkerHandle::opsDone).sum();
    }

    /** Everything the workers recorded so far, counted: what the supervisor watches for progress. */
    private long activity() {
        long sum = 0;
        for (WorkerHandle worker : workers) {
            sum += worker.activity();
        }
        return sum;
    }

    /** When the workers started, on the run's clock; 0 before. */
    public long startNanos() {
        return startNanos;
    }

    /** The outcome, once the run has ended. */
    public CompletableFuture<Outcome> outcome() {
        return outcome;
    }

    /** Starts the run in the background; returns at once. */
    public void start() {
        phases.prepare(lab.id(), spec.workers());
        runThreads.start("run-" + lab.id(), this::supervise);
    }

    /** Halts every worker at the next gate it reaches (step mode). */
    public void pause() {
        phases.pause();
    }

    /** Ends step mode: every halted worker goes on; breakpoints still halt. */
    public void resume() {
        phases.resume();
    }

    /** Releases worker {@code index}, halted at a gate, to run to its next gate; false if it was not halted. */
    public boolean step(int index) {
        return phases.step(index, workers.get(index).actor());
    }

    /** Replaces the gates; workers follow the new plan from the next gate they reach. */
    public void setPlan(GatePlan plan) {
        phases.setPlan(plan, lab::workerName);
    }

    /** Scales every delay: 2.0 makes them twice as long (slow motion), 0.5 half. */
    public void setDelayScale(double scale) {
        phases.setDelayScale(scale);
    }

    /** Stops the run; returns at once, the outcome follows when the workers are gone. */
    public void stop() {
        stopRequested = true;
        if (phases.now() != RunPhase.READY) {
            return;  // The supervisor sees the request; nothing here waits for anyone.
        }
        Outcome stoppedEarly = Outcome.error("stopped before it started", "The run was stopped before it began.");
        if (phases.end(record, stoppedEarly, true)) {
            outcome.complete(stoppedEarly);
        }
    }

    /** Stops this run if it is live and returns a fresh one with the same settings. */
    public Run reset() {
        stop();
        return new Run(lab, spec, clock, recorder.capacity());
    }

    /** Waits for the outcome. */
    public Outcome awaitOutcome(Duration timeout) throws InterruptedException, TimeoutException {
        try {
            return outcome.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            throw new IllegalStateException("the run's supervisor failed", e.getCause());
        }
    }

    boolean stopping() {
        return stopping;
    }

    /** A thread of this run died of {@code cause}: on the record, and the run ends with ERROR. */
    private void threadFailed(String thread, Throwable cause) {
        recorder.record(RUN_ACTOR, EventKind.ERROR, thread + " failed: " + RunResults.message(cause), 0);
        if (!stopping) {
            failure.compareAndSet(null, new Failure(thread, cause));
        }
    }

    private void supervise() {
        Outcome result = null;
        try {
            result = openRunAndJudge();
        } catch (Throwable e) {
            result = Outcome.error("the run broke", RunResults.message(e));
            recorder.record(RUN_ACTOR, EventKind.ERROR, RunResults.message(e), 0);
        } finally {
            if (result == null) {
                result = Outcome.error("the run broke", "The run ended without an outcome.");
            }
            Outcome last = result;
            try {
                last = RunResults.withPlaces(result.withMetrics(RunResults.metrics(opsCompleted(), startNanos, endNanos,
                        recorder)), recorder);
            } catch (Throwable e) {
                recorder.record(RUN_ACTOR, EventKind.ERROR, "summing up the run failed: " + RunResults.message(e), 0);
            } finally {
                if (steering != null) {
                    record.followed(steering.schedule());
                }
                phases.end(record, last, false);
                outcome.complete(last);
            }
        }
    }

    /** Everything between start and the verdict; whatever throws, the caller still ends the run. */
    private Outcome openRunAndJudge() {
        Scenario scenario = null;
        RunObservers observing = null;
        String stage = "prepare the lab";
        Outcome result;
        try {
            scenario = lab.open(new RunSetup(id, strategy, spec.workers(), spec.ops(), spec.seed(), spec.switches(),
                    runThreads, servers, () -> stopRequested));
            stage = "connect the workers";
            for (WorkerHandle worker : workers) {
                worker.script = scenario.worker(worker);
            }
            if (spec.observe()) {
                stage = "connect its observers";
                observing = new RunObservers(scenario.observers(), recorder, servers, runThreads, lab.id(), observed);
            }
            if (steering != null) {
                steering.askingOf(scenario.serverWaits());
                gates.schedule();
            }
            if (spec.stepMode() || steering != null) {
                pause();
            }
            stage = "run the workers";
            boolean timedOut = runWorkers(scenario, observing);
            stage = "judge the run";
            result = conclude(scenario, timedOut);
        } catch (Throwable e) {
            result = endedBy("could not " + stage, scenario, e);
            recorder.record(RUN_ACTOR, EventKind.ERROR, result.explanation(), 0);
        } finally {
            stopWorkers();
            if (observing != null) {
                observing.close();
            }
            closeAll(scenario);
        }
        return result;
    }

    /**
     * The outcome of a run that {@code failure} ended. A failure that a server of the run says was
     * its doing (it crashed, restarted, terminated the session, the connection broke) is a server
     * failure, on the record as one and named by the server; any other the scenario explains.
     */
    private Outcome endedBy(String headline, Scenario scenario, Throwable failure) {
        Optional<String> lost = servers.lost(failure);
        if (lost.isPresent()) {
            record.serverFailure(lost.get());
            return Outcome.error(headline, lost.get());
        }
        return Outcome.error(headline, RunResults.explain(scenario, failure));
    }

    /** Runs the workers until they finish, one fails, the user stops, or progress stalls. */
    private boolean runWorkers(Scenario scenario, RunObservers observing) throws Exception {
        recorder.record(RUN_ACTOR, EventKind.RUN_STARTED, strategy.id(), spec.workers());
        if (observing != null) {
            observing.begin();
        }
        startNanos = clock.nanos();
        threads.make(runThreads, this::stopping, (worker, e) -> failure.compareAndSet(null, new Failure(worker, e)));
        phases.workersStart();
        threads.startAll();
        if (steering != null) {
            runThreads.start("schedule-" + lab.id(), steering::drive);
        }
        StallWatch watch = new StallWatch(startNanos, spec.timeout());
        while (!threads.await(POLL_MILLIS)) {
            if (stopRequested || failure.get() != null) {
                return false;
            }
            if (steering != null && steering.atRest()) {
                // Nothing can move the workers any more: judged now, as at the timeout.
                deadlock = scenario.deadlock(summary(true));
                return true;
            }
            switch (watch.after(clock.nanos(), activity(), !gates.halted().isEmpty(), gates.holdingAnyone(),
                    scenario.waitingSince(summary(true)))) {
                case TIMED_OUT -> {
                    return true;
                }
                case ASK_DEADLOCK -> {
                    deadlock = scenario.deadlock(summary(true));
                    if (deadlock != null) {
                        return true;
                    }
                }
                case GO_ON -> {
                    // Watched again after the next poll.
                }
            }
        }
        endNanos = clock.nanos();
        return false;
    }

    private Outcome conclude(Scenario scenario, boolean timedOut) throws Exception {
        Failure failed = failure.get();
        if (failed != null) {
            stopWorkers();
            return endedBy(failed.thread + " failed", scenario, failed.cause);
        }
        if (timedOut && deadlock != null) {
            stopWorkers();
            return deadlock;
        }
        if (timedOut) {
            // Workers waiting on a server that no longer answers are not stuck: the server is.
            Optional<String> silent = servers.trouble();
            if (silent.isPresent()) {
                record.serverFailure(silent.get());
                stopWorkers();
                return Outcome.error("a server stopped answering", silent.get());
            }
            RunSummary stalled = summary(true);
            Outcome diagnosis = scenario.diagnose(stalled);
            stopWorkers();
            return diagnosis != null ? diagnosis : RunResults.stuck(workers, spec, steering != null && steering.atRest());
        }
        stopWorkers();
        Failure late = failure.get();
        if (late != null) {
            return endedBy(late.thread + " failed", scenario, late.cause);
        }
        Outcome judged = scenario.judge(summary(false));
        if (stopRequested) {
            judged = judged.prefixed("Stopped by the user after " + opsCompleted() + " of "
                    + (long) spec.workers() * spec.ops() + " operations. ");
        }
        return judged;
    }

    /** Ends every worker thread still alive: release, interrupt, abort, join. Idempotent. */
    private void stopWorkers() {
        stopping = true;
        gates.stop();
        threads.stop(() -> phases.stopping(threads.running()));
        if (endNanos == 0 && startNanos != 0) {
            endNanos = clock.nanos();
        }
    }

    /** Closes scripts whose threads never started (their threads close their own), then the scenario. */
    private void closeAll(Scenario scenario) {
        threads.closeUnstarted();
        if (scenario != null) {
            try {
                scenario.close();
            } catch (Exception e) {
                recorder.record(RUN_ACTOR, EventKind.ERROR, "cleaning up failed: " + RunResults.message(e), 0);
            }
        }
    }

    private RunSummary summary(boolean stalled) {
        long end = stalled || endNanos == 0 ? clock.nanos() : endNanos;
        return new RunSummary(spec.workers(), spec.ops(), opsCompleted(), end - startNanos, stopRequested, stalled,
                recorder, spec.timeout());
    }

    private record Failure(String thread, Throwable cause) {
    }

    /** What the run's observers ask of it: lanes, whether it stops, its workers, a failure to end it. */
    private final RunObservers.Host observed = new RunObservers.Host() {
        @Override
        public int addLane(String name) {
            return addActor(name, Actor.Kind.SERVER);
        }

        @Override
        public boolean stopping() {
            return stopping;
        }

        @Override
        public void failed(String who, Throwable cause) {
            failure.compareAndSet(null, new Failure(who, cause));
        }

        @Override
        public int workerActor(String name) {
            for (WorkerHandle worker : workers) {
                if (worker.name().equals(name)) {
                    return worker.actor();
                }
            }
            return -1;
        }
    };
}
