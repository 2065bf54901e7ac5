package dev.racelab.classroom;

import dev.racelab.backend.Redis;
import dev.racelab.engine.Clock;
import dev.racelab.engine.GatePlan;
import dev.racelab.engine.Outcome;
import dev.racelab.engine.Run;
import dev.racelab.engine.RunSpec;
import dev.racelab.engine.Verdict;
import dev.racelab.engine.lab.Lab;
import dev.racelab.labs.Labs;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * A participant's share of one run of a class: its run of the lab on the host's rows, in step mode
 * so that its workers halt at their first gate until the host's go, and its events on their way to
 * the host ({@link MemberFeed}). Used by the participant's one thread.
 */
final class MemberRun implements AutoCloseable {

    private final Run run;
    private final MemberFeed feed;
    private final ClassChannel channel;
    private final String member;
    private final int workers;
    private final String classRun;
    private boolean finished;

    private MemberRun(Run run, MemberFeed feed, ClassChannel channel, String member, int workers, String classRun) {
        this.classRun = classRun;
        this.run = run;
        this.feed = feed;
        this.channel = channel;
        this.member = member;
        this.workers = workers;
    }

    /**
     * Starts this participant's run of {@code plan} with {@code workers} workers and its own delays
     * ({@code --delay}'s text), unless the host keeps the delays.
     *
     * @throws IllegalArgumentException saying what of the plan, or of the delays, this RaceLab cannot run
     */
    static MemberRun prepare(ClassPlan plan, Labs labs, int workers, List<String> delays, Redis redis, ClassCode code,
                             String member, ClassClock clock, ClassChannel channel, Consumer<String> say) {
        Lab lab = labs.find(plan.lab()).orElseThrow(() -> new IllegalArgumentException(
                "the class runs lab " + plan.lab() + ", which this RaceLab does not have"));
        // Never null: a participant without a seat in the plan sits the run out before this.
        int first = plan.seatOf(member).first();
        // Each participant's workers draw their own delays: the same seed everywhere would give every
        // participant's client-1 the same pause at every gate.
        RunSpec spec = plan.spec(lab, workers).withStepMode(true).withSeed(plan.seed() + 7_919L * first);
        if (!delays.isEmpty() && plan.delaysKept()) {
            say.accept("The host keeps the delays: yours are not used in this run");
        } else if (!delays.isEmpty()) {
            GatePlan gates = spec.gates();
            for (String delay : delays) {
                try {
                    gates = gates.withDelay(lab, workers, delay);
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("--delay " + delay + ": " + e.getMessage());
                }
            }
            spec = spec.withGates(gates);
        }
        Run run = new Run(new JoinedExperiment(lab, plan.run(), first, ClassPlan.workers(plan.seats())), spec,
                Clock.system());
        run.start();
        return new MemberRun(run, MemberFeed.start(run, redis, code, member, plan.run(), clock), channel, member,
                workers, plan.run());
    }

    /** Waits until every worker halted at its first gate; null then, else why they cannot begin. */
    String awaitReady(long millis) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (run.gates().halted().size() < workers && !run.outcome().isDone()) {
            if (System.nanoTime() > deadline) {
                return "its workers did not get ready within " + millis / 1000 + " s";
            }
            Thread.sleep(5);
        }
        if (run.outcome().isDone()) {
            Outcome failed = run.outcome().join();
            return failed.headline() + ": " + failed.explanation();
        }
        return null;
    }

    /** Lets the workers go at {@code local} on this machine's clock (a few seconds ahead at most). */
    void go(long local) throws InterruptedException {
        long wait = local - System.nanoTime();
        if (wait > 0) {
            TimeUnit.NANOSECONDS.sleep(Math.min(wait, TimeUnit.SECONDS.toNanos(5)));
        }
        feed.from(System.nanoTime());
        run.resume();
    }

    /** The class's run this is a share of: its id. */
    String classRun() {
        return classRun;
    }

    void pause() {
        run.pause();
    }

    void resume() {
        run.resume();
    }

    void stop() {
        run.stop();
    }

    /** Releases worker {@code worker} from its gate to the next, as the host stepped it. */
    void step(int worker) {
        if (worker >= 0 && worker < workers) {
            run.step(worker);
        }
    }

    /** Whether this machine's run has ended (its workers are done, or it failed). */
    boolean ended() {
        return run.outcome().isDone();
    }

    /** Once: sends what is left of its events and tells the host it is done, saying if its workers failed. */
    void finish(Consumer<String> say) throws InterruptedException {
        if (finished) {
            return;
        }
        finished = true;
        try {
            Outcome outcome = run.outcome().get(10, TimeUnit.SECONDS);
            if (outcome.verdict() == Verdict.ERROR) {
                say.accept("This machine's workers failed: " + outcome.headline() + ": " + outcome.explanation());
            }
        } catch (ExecutionException | TimeoutException e) {
            // Its events say what happened; the host judges.
        }
        feed.close();
        channel.post(ClassChannel.ROLL, Map.of("type", "done", "member", member, "run", classRun,
                "ops", String.valueOf(run.opsCompleted())));
    }

    @Override
    public void close() {
        run.stop();
        feed.close();
    }
}
