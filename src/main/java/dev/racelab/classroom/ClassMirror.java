package dev.racelab.classroom;

import com.google.gson.Gson;
import com.google.gson.JsonParseException;
import com.google.gson.reflect.TypeToken;
import dev.racelab.backend.Redis;
import dev.racelab.engine.Clock;
import dev.racelab.engine.LabWorker;
import dev.racelab.engine.Outcome;
import dev.racelab.engine.Run;
import dev.racelab.engine.RunSetup;
import dev.racelab.engine.RunSpec;
import dev.racelab.engine.RunSummary;
import dev.racelab.engine.Scenario;
import dev.racelab.engine.Verdict;
import dev.racelab.engine.WorkerContext;
import dev.racelab.engine.lab.Lab;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A participant's copy of the whole class's run, for its window: every participant's workers on
 * lanes named as the host names them ({@code name · client-1}), fed by a hub that only reads
 * ({@link ClassHub}), and judged by the host: its verdict is the one the host tells. It touches no
 * row and tells nobody anything. Only a participant whose window follows the class keeps one: forty
 * headless participants each reading everyone's events would be forty times the host's reading.
 */
final class ClassMirror implements AutoCloseable {

    /** How long the copy waits for the host's verdict once its lanes are done. */
    private static final long VERDICT_MILLIS = 15_000;
    private static final Gson GSON = new Gson();

    private final Run run;
    private final ClassHub hub;
    private final CompletableFuture<Outcome> told = new CompletableFuture<>();
    /** The host's go: the instant, on this machine's clock, the class's workers began. */
    private final CompletableFuture<Long> going = new CompletableFuture<>();
    private volatile long toldAt;

    private ClassMirror(Lab lab, ClassPlan plan, RunSpec spec, ClassHub hub) {
        this.hub = hub;
        this.run = new Run(new Copy(lab, plan.seats(), hub, told, going), spec, Clock.system());
    }

    /** Starts a copy of run {@code plan} of the class, reading from now on. */
    static ClassMirror start(Lab lab, ClassPlan plan, Redis redis, ClassCode code, ClassClock clock) {
        int workers = ClassPlan.workers(plan.seats());
        // The class's delays, as its run is shown: the copy's lanes pass no gate of their own.
        RunSpec spec = plan.spec(lab, Math.max(1, workers));
        ClassHub hub = new ClassHub(redis, code, plan.seats(), clock);
        try {
            hub.run(plan.run());
            ClassMirror mirror = new ClassMirror(lab, plan, spec, hub);
            mirror.run.start();
            return mirror;
        } catch (RuntimeException | Error e) {
            hub.close();
            throw e;
        }
    }

    /**
     * The host's go, at {@code local} on this machine's clock, named {@code members}: the copy's
     * lanes begin then, as the host's do; the others sit this run out, and their lanes end.
     */
    void go(List<String> members, long local) {
        for (ClassPlan.Seat seat : hub.seats()) {
            if (!members.contains(seat.member())) {
                hub.leaveOut(seat.member());
            }
        }
        going.complete(local);
    }

    /** The host counted {@code member} out of the run. */
    void out(String member) {
        hub.leaveOut(member);
    }

    /**
     * Once the host told its verdict, every participant's events have reached the host, and so, a
     * few seconds on, this copy: a lane still open then (a participant whose end was not heard here)
     * is closed, so the copy ends with the host's verdict.
     */
    void tidy() {
        long at = toldAt;
        if (at != 0 && System.nanoTime() - at > TimeUnit.SECONDS.toNanos(3) && !run.outcome().isDone()) {
            run.stop();
        }
    }

    Run run() {
        return run;
    }

    /** The host's verdict, as it told it: the copy's outcome. */
    void told(Map<String, String> ended) {
        Map<String, Number> metrics = new LinkedHashMap<>();
        try {
            Map<String, Double> sent = GSON.fromJson(ended.getOrDefault("metrics", "{}"),
                    new TypeToken<Map<String, Double>>() { }.getType());
            if (sent != null) {
                sent.forEach((name, value) -> metrics.put(name, value == Math.rint(value) ? (Number) value.longValue() : value));
            }
        } catch (JsonParseException | ClassCastException e) {
            // The verdict's words stand without the figures.
        }
        Verdict verdict;
        try {
            verdict = Verdict.valueOf(String.valueOf(ended.get("verdict")));
        } catch (IllegalArgumentException e) {
            verdict = Verdict.ERROR;
        }
        told.complete(new Outcome(verdict, String.valueOf(ended.get("headline")), String.valueOf(ended.get("explanation")),
                Map.of(), metrics, List.of()));
        toldAt = System.nanoTime();
    }

    @Override
    public void close() {
        told.complete(Outcome.error("the class's run ended without a verdict", "This machine left, or the host ended "
                + "the class, before the host told the verdict."));
        run.stop();
        try {
            run.outcome().get(5, TimeUnit.SECONDS);
        } catch (Exception e) {
            // Going: what it showed stays on screen.
        }
        hub.close();
    }

    /** The class's lab as the copy runs it: lanes that stand for everyone's workers, judged by the host. */
    private static final class Copy extends SeatedExperiment {

        private final ClassHub hub;
        private final CompletableFuture<Outcome> told;
        private final CompletableFuture<Long> going;

        Copy(Lab lab, List<ClassPlan.Seat> seats, ClassHub hub, CompletableFuture<Outcome> told,
             CompletableFuture<Long> going) {
            super(lab, seats);
            this.hub = hub;
            this.told = told;
            this.going = going;
        }

        /**
         * Opens when the class's workers begin (the host's go), as the host's run does: before, the
         * participants are getting ready, and no lane of the copy shows them running.
         */
        @Override
        public Scenario open(RunSetup setup) throws Exception {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(HostedExperiment.READY_WITHIN_MILLIS * 2);
            Long at = null;
            while (at == null && !setup.stopping().getAsBoolean()) {
                try {
                    at = going.get(50, TimeUnit.MILLISECONDS);
                } catch (TimeoutException notYet) {
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException("the host did not start the class's run");
                    }
                }
            }
            long wait = at == null ? 0 : at - System.nanoTime();
            if (wait > 0) {
                TimeUnit.NANOSECONDS.sleep(Math.min(wait, TimeUnit.SECONDS.toNanos(5)));
            }
            Ledger ledger = new Ledger(seats);
            Scenario nobody = new Scenario() {
                @Override
                public LabWorker worker(WorkerContext context) {
                    throw new UnsupportedOperationException();
                }

                @Override
                public Outcome judge(RunSummary summary) {
                    throw new UnsupportedOperationException();
                }
            };
            return new Scenario() {
                @Override
                public LabWorker worker(WorkerContext context) {
                    ClassPlan.Seat seat = ClassPlan.seatAt(seats, context.index());
                    return new ProxyWorker(context, hub, seat, context.index() - seat.first(), nobody, ledger);
                }

                @Override
                public Outcome judge(RunSummary summary) throws Exception {
                    try {
                        return told.get(VERDICT_MILLIS, TimeUnit.MILLISECONDS);
                    } catch (TimeoutException e) {
                        return Outcome.error("the host's verdict did not come", "The class's workers are done, but "
                                + "the host did not tell its verdict within " + VERDICT_MILLIS / 1000 + " s.");
                    }
                }
            };
        }
    }
}
