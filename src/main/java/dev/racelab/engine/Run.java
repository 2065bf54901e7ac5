package dev.racelab.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One run of a lab: its workers, gates, recording and, at the end, its {@link Outcome}.
 *
 * <p>A run is used once: {@link #start} it, {@link #pause}/{@link #resume}/{@link #step} it,
 * {@link #stop} it or let it finish; {@link #reset} gives a fresh run with the same settings.
 *
 * <p><b>Threads.</b> {@code start} hands everything to a supervisor thread named after the lab:
 * it opens the scenario (fresh server state, one connection per worker), starts one thread per
 * worker named after the worker ({@code client-3}), watches for progress, failure, stop requests
 * and stalls, and judges. Server observers poll on their own thread. Control methods may be
 * called from any thread and never block on the servers.
 *
 * <p><b>Stopping.</b> Halted workers are released with an exception that unwinds their script,
 * blocked ones are interrupted and their server calls aborted; then every worker is closed and the
 * scenario removes what it created. A run that has ended holds no thread, connection or lock.
 */
public final class Run {

    public enum State { READY, PREPARING, RUNNING, PAUSED, STOPPING, ENDED }

    /** Actor id of the run's own lane. */
    public static final int RUN_ACTOR = 0;

    private static final long POLL_MILLIS = 20;
    /** How long a run is quiet before its lab is asked whether the workers are deadlocked. */
    private static final long DEADLOCK_CHECK_NANOS = 1_000_000_000L;
    private static final long ABORT_AFTER_MILLIS = 250;
    private static final long JOIN_MILLIS = 5_000;
    private static final int MAX_PLACES = 10_000;

    private final Lab lab;
    private final RunSpec spec;
    private final Strategy strategy;
    private final Clock clock;
    private final Recorder recorder;
    private final GateKeeper gates;
    private final String id;
    private final List<Actor> actors = new CopyOnWriteArrayList<>();
    private final List<WorkerHandle> workers = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    private final CountDownLatch workersDone;
    private final AtomicReference<Failure> failure = new AtomicReference<>();
    private final CompletableFuture<Outcome> outcome = new CompletableFuture<>();

    private volatile State state = State.READY;
    private volatile boolean stopRequested;
    /** A deadlock the lab named before the timeout; read by the supervisor thread only. */
    private Outcome deadlock;
    private volatile boolean stopping;
    private volatile long startNanos;
    private volatile long endNanos;

    public Run(Lab lab, RunSpec spec, Clock clock) {
        this(lab, spec, clock, Recorder.DEFAULT_CAPACITY);
    }

    public Run(Lab lab, RunSpec spec, Clock clock, int recorderCapacity) {
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
        this.gates = new GateKeeper(lab.gates(), spec.workers(), spec.gates(), clock);
        this.id = HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt());
        this.workersDone = new CountDownLatch(spec.workers());
        actors.add(new Actor(RUN_ACTOR, "run", Actor.Kind.RUN));
        for (int i = 0; i < spec.workers(); i++) {
            String name = lab.workerName(i);
            actors.add(new Actor(actors.size(), name, Actor.Kind.WORKER));
            workers.add(new WorkerHandle(i, name, actors.size() - 1, spec.seed(), recorder, gates, this));
        }
    }

    public Lab lab() {
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

    public Recorder recorder() {
        return recorder;
    }

    public GateKeeper gates() {
        return gates;
    }

    public State state() {
        return state;
    }

    /** Everyone with a lane: the run, then the workers, then server lanes once the run started. */
    public List<Actor> actors() {
        return List.copyOf(actors);
    }

    /** Actor id of worker {@code index} (0-based). */
    public int workerActor(int index) {
        return workers.get(index).actor();
    }

    /** Operations finished so far, summed over workers. */
    public long opsCompleted() {
        return workers.stream().mapToLong(WorkerHandle::opsDone).sum();
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
    public synchronized void start() {
        if (state != State.READY) {
            throw new IllegalStateException("a run starts once; this one is " + state);
        }
        state = State.PREPARING;
        Thread supervisor = new Thread(this::supervise, "run-" + lab.id());
        supervisor.setDaemon(true);
        supervisor.start();
    }

    /** Halts every worker at the next gate it reaches (step mode). */
    public void pause() {
        if (state == State.RUNNING || state == State.PREPARING) {
            gates.enterStepMode();
            recorder.record(RUN_ACTOR, EventKind.RUN_PAUSED, null, 1);
            state = State.PAUSED;
        }
    }

    /** Ends step mode: every halted worker goes on; breakpoints still halt. */
    public void resume() {
        if (state == State.PAUSED) {
            gates.resumeAll();
            recorder.record(RUN_ACTOR, EventKind.RUN_PAUSED, null, 0);
            state = State.RUNNING;
        }
    }

    /** Releases worker {@code index}, halted at a gate, to run to its next gate. */
    public boolean step(int index) {
        return gates.step(index);
    }

    /** Stops the run; returns at once, the outcome follows when the workers are gone. */
    public void stop() {
        stopRequested = true;
        if (state == State.READY) {
            state = State.ENDED;
            outcome.complete(Outcome.error("stopped before it started", "The run was stopped before it began."));
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

    private void supervise() {
        Scenario scenario = null;
        Observing observing = null;
        String stage = "prepare the lab";
        Outcome result;
        try {
            scenario = lab.open(new RunSetup(id, strategy, spec.workers(), spec.ops(), spec.seed()));
            stage = "connect the workers";
            for (WorkerHandle worker : workers) {
                worker.script = scenario.worker(worker);
            }
            if (spec.observe()) {
                observing = new Observing(scenario.observers());
            }
            if (spec.stepMode()) {
                pause();
            }
            stage = "run the workers";
            boolean timedOut = runWorkers(scenario);
            stage = "judge the run";
            result = conclude(scenario, timedOut);
        } catch (Exception | LinkageError e) {
            String why = scenario == null ? message(e) : scenario.explain(e);
            result = Outcome.error("could not " + stage, why);
            recorder.record(RUN_ACTOR, EventKind.ERROR, why, 0);
        } finally {
            stopWorkers();
            if (observing != null) {
                observing.close();
            }
            closeAll(scenario);
        }
        result = withPlaces(result.withMetrics(metrics()));
        recorder.record(RUN_ACTOR, EventKind.RUN_ENDED, result.verdict().name(), result.verdict().ordinal());
        state = State.ENDED;
        outcome.complete(result);
    }

    /** Runs the workers until they finish, one fails, the user stops, or progress stalls. */
    private boolean runWorkers(Scenario scenario) throws Exception {
        recorder.record(RUN_ACTOR, EventKind.RUN_STARTED, strategy.id(), spec.workers());
        startNanos = clock.nanos();
        for (WorkerHandle worker : workers) {
            Thread thread = new Thread(() -> work(worker), worker.name());
            thread.setDaemon(true);
            threads.add(thread);
        }
        if (state == State.PREPARING) {
            state = State.RUNNING;
        }
        threads.forEach(Thread::start);
        long seen = -1;
        long lastProgress = clock.nanos();
        boolean askedForDeadlock = false;
        while (!workersDone.await(POLL_MILLIS, TimeUnit.MILLISECONDS)) {
            if (stopRequested || failure.get() != null) {
                return false;
            }
            long now = clock.nanos();
            long size = recorder.size() + recorder.dropped();
            if (size != seen || gates.holdingAnyone()) {
                seen = size;
                lastProgress = now;
                askedForDeadlock = false;
            } else if (now - lastProgress > spec.timeout().toNanos()) {
                return true;
            } else if (!askedForDeadlock && now - lastProgress > DEADLOCK_CHECK_NANOS) {
                // A cycle of waits does not break by itself: say so now, not at the timeout.
                askedForDeadlock = true;
                deadlock = scenario.deadlock(summary(true));
                if (deadlock != null) {
                    return true;
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
            String why = scenario.explain(failed.cause);
            return Outcome.error(failed.worker + " failed", why);
        }
        if (timedOut && deadlock != null) {
            stopWorkers();
            return deadlock;
        }
        if (timedOut) {
            RunSummary stalled = summary(true);
            Outcome diagnosis = scenario.diagnose(stalled);
            stopWorkers();
            return diagnosis != null ? diagnosis : stuck();
        }
        stopWorkers();
        Outcome judged = scenario.judge(summary(false));
        if (stopRequested) {
            judged = judged.prefixed("Stopped by the user after " + opsCompleted() + " of "
                    + (long) spec.workers() * spec.ops() + " operations. ");
        }
        return judged;
    }

    private Outcome stuck() {
        List<String> unfinished = new ArrayList<>();
        for (WorkerHandle worker : workers) {
            if (worker.opsDone() < spec.ops()) {
                unfinished.add(worker.name());
            }
        }
        return new Outcome(Verdict.STUCK, "no progress for " + spec.timeout().toSeconds() + " s",
                "These workers never finished: " + String.join(", ", unfinished) + ".",
                Map.of("stuck workers", (long) unfinished.size()), Map.of(), List.of());
    }

    private void work(WorkerHandle worker) {
        try {
            worker.state(ActorState.RUNNING);
            for (int op = 0; op < spec.ops() && !stopping; op++) {
                worker.mark(EventKind.OP_BEGIN, null, op);
                worker.script.operation(op);
                worker.mark(EventKind.OP_END, null, op);
                worker.opDone();
            }
            if (!stopping) {
                worker.state(ActorState.DONE);
            }
        } catch (GateKeeper.RunStopped | InterruptedException e) {
            // Stopped: the lane keeps showing what the worker was doing when the run ended.
        } catch (Exception | LinkageError e) {
            if (!stopping) {
                failure.compareAndSet(null, new Failure(worker.name(), e));
                worker.mark(EventKind.ERROR, message(e), 0);
                worker.state(ActorState.FAILED);
            }
        } finally {
            gates.finished(worker.index());
            try {
                worker.script.close();
            } catch (Exception e) {
                worker.mark(EventKind.NOTE, "closing failed: " + message(e), 0);
            }
            workersDone.countDown();
        }
    }

    /** Ends every worker thread still alive: release, interrupt, abort, join. Idempotent. */
    private void stopWorkers() {
        stopping = true;
        gates.stop();
        if (workersDone.getCount() > 0 && !threads.isEmpty()) {
            state = State.STOPPING;
            threads.forEach(Thread::interrupt);
            try {
                if (!workersDone.await(ABORT_AFTER_MILLIS, TimeUnit.MILLISECONDS)) {
                    workers.forEach(worker -> worker.script.abort());
                }
                for (Thread thread : threads) {
                    thread.join(JOIN_MILLIS);
                    if (thread.isAlive()) {
                        recorder.record(RUN_ACTOR, EventKind.ERROR, thread.getName() + " did not stop", 0);
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (endNanos == 0 && startNanos != 0) {
            endNanos = clock.nanos();
        }
    }

    /** Closes scripts whose threads never started (their threads close their own), then the scenario. */
    private void closeAll(Scenario scenario) {
        if (threads.isEmpty()) {
            for (WorkerHandle worker : workers) {
                if (worker.script != null) {
                    try {
                        worker.script.close();
                    } catch (Exception e) {
                        recorder.record(RUN_ACTOR, EventKind.NOTE, "closing " + worker.name() + ": " + message(e), 0);
                    }
                }
            }
        }
        if (scenario != null) {
            try {
                scenario.close();
            } catch (Exception e) {
                recorder.record(RUN_ACTOR, EventKind.ERROR, "cleaning up failed: " + message(e), 0);
            }
        }
    }

    private RunSummary summary(boolean stalled) {
        long end = stalled || endNanos == 0 ? clock.nanos() : endNanos;
        return new RunSummary(spec.workers(), spec.ops(), opsCompleted(), end - startNanos, stopRequested, stalled,
                recorder);
    }

    /** Points the outcome at every violation event, unless the oracle chose the places itself. */
    private Outcome withPlaces(Outcome judged) {
        if (!judged.places().isEmpty()) {
            return judged;
        }
        List<Long> places = new ArrayList<>();
        recorder.drain(0, Integer.MAX_VALUE, event -> {
            if (event.kind() == EventKind.VIOLATION && places.size() < MAX_PLACES) {
                places.add(event.seq());
            }
        });
        return new Outcome(judged.verdict(), judged.headline(), judged.explanation(), judged.violations(),
                judged.metrics(), places);
    }

    private Map<String, Number> metrics() {
        Map<String, Number> metrics = new LinkedHashMap<>();
        long elapsed = startNanos == 0 ? 0 : endNanos - startNanos;
        metrics.put("opsCompleted", opsCompleted());
        metrics.put("opsPerSec", elapsed <= 0 ? 0 : Math.round(opsCompleted() * 1e9 / elapsed));
        metrics.put("runMs", elapsed / 1_000_000);
        metrics.put("droppedEvents", recorder.dropped());
        return metrics;
    }

    static String message(Throwable e) {
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }

    private record Failure(String worker, Throwable cause) {
    }

    /** Polls the scenario's server observers on one thread while the run is live. */
    private final class Observing implements ServerObserver.LaneSink, AutoCloseable {

        private static final long INTERVAL_MILLIS = 50;

        private final List<ServerObserver> observers;
        private final List<int[]> laneActors = new ArrayList<>();
        private final Thread thread;
        private volatile boolean open = true;
        private int[] current;

        Observing(List<ServerObserver> observers) {
            this.observers = observers;
            for (ServerObserver observer : observers) {
                int[] ids = new int[observer.lanes().size()];
                for (int lane = 0; lane < ids.length; lane++) {
                    ids[lane] = actors.size();
                    actors.add(new Actor(actors.size(), observer.lanes().get(lane), Actor.Kind.SERVER));
                }
                laneActors.add(ids);
            }
            thread = new Thread(this::poll, "observer-" + lab.id());
            thread.setDaemon(true);
            thread.start();
        }

        private void poll() {
            while (open) {
                for (int i = 0; i < observers.size() && open; i++) {
                    current = laneActors.get(i);
                    try {
                        observers.get(i).poll(this);
                    } catch (Exception e) {
                        if (open) {
                            recorder.record(current[0], EventKind.NOTE, "observer failed: " + message(e), 0);
                        }
                    }
                }
                try {
                    Thread.sleep(INTERVAL_MILLIS);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }

        @Override
        public Event record(int lane, EventKind kind, String subject, long value) {
            return recorder.record(current[lane], kind, subject, value);
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

        /** Stops polling, reads the servers one last time (the run's final state), and closes. */
        @Override
        public void close() {
            open = false;
            thread.interrupt();
            try {
                thread.join(JOIN_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (!thread.isAlive()) {
                for (int i = 0; i < observers.size(); i++) {
                    current = laneActors.get(i);
                    try {
                        observers.get(i).poll(this);
                    } catch (Exception e) {
                        recorder.record(current[0], EventKind.NOTE, "observer failed: " + message(e), 0);
                    }
                }
            }
            for (ServerObserver observer : observers) {
                try {
                    observer.close();
                } catch (Exception e) {
                    recorder.record(RUN_ACTOR, EventKind.NOTE, "closing observer: " + message(e), 0);
                }
            }
        }
    }
}
