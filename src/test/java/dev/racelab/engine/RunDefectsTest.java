package dev.racelab.engine;

import dev.racelab.support.Poll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeoutException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * How the engine copes when things go wrong in ways a lab or a server can make them go wrong:
 * errors instead of exceptions, silent servers, stubborn threads, a user pausing as the run ends.
 * Each of these once left a run hanging or lying; none of these tests talks to a server.
 */
@Tag("engine")
class RunDefectsTest {

    private static final Duration WAIT = Duration.ofSeconds(10);

    private final MemoryCounterLab lab = new MemoryCounterLab();

    private RunSpec spec(MemoryCounterLab.Strategies strategy, int workers) {
        return lab.defaults().withStrategy(strategy.id()).withWorkers(workers).withOps(1);
    }

    @Test
    void anErrorWhileTheLabOpensTheRunStillEndsItWithError() throws Exception {
        Run run = new Run(lab, spec(MemoryCounterLab.Strategies.OPEN_ERROR, 2), new ManualClock());
        run.start();
        Outcome outcome = run.awaitOutcome(WAIT);
        assertEquals(Verdict.ERROR, outcome.verdict());
        assertTrue(outcome.explanation().contains("assertion"), outcome.explanation());
        assertEquals(RunPhase.ENDED, run.phase());
        assertEquals(outcome, run.record().outcome(), "the record holds the outcome");
    }

    @Test
    void aWorkerThatDiesOfAnErrorEndsTheRunWithErrorOnItsLane() throws Exception {
        Run run = new Run(lab, spec(MemoryCounterLab.Strategies.WORKER_ERROR, 2), new ManualClock());
        run.start();
        Outcome outcome = run.awaitOutcome(WAIT);
        assertEquals(Verdict.ERROR, outcome.verdict(), outcome.banner());
        assertTrue(outcome.headline().matches("worker-[12] failed"), outcome.headline());
        assertTrue(run.recorder().snapshot().stream().anyMatch(e -> e.kind() == EventKind.ERROR
                && e.actor() != Run.RUN_ACTOR && e.subject().contains("assertion")), "the error is on the worker's lane");
    }

    @Test
    void workersHangingWhileAnObserverFailsAreStuckAtTheTimeout() throws Exception {
        ManualClock clock = new ManualClock();
        Run run = new Run(lab, spec(MemoryCounterLab.Strategies.HANG_OBSERVED, 2).withObserve(true)
                .withTimeout(Duration.ofSeconds(2)), clock);
        run.start();
        // The observer notes its failure every 50 ms; that is not the workers getting anywhere.
        for (int i = 0; i < 200 && !run.outcome().isDone(); i++) {
            clock.advance(Duration.ofMillis(500));
            try {
                run.awaitOutcome(Duration.ofMillis(50));
            } catch (TimeoutException notYet) {
                // Let more time pass.
            }
        }
        assertTrue(run.outcome().isDone(), "the run never ended: the observer's notes counted as progress");
        Outcome outcome = run.awaitOutcome(WAIT);
        assertEquals(Verdict.STUCK, outcome.verdict(), outcome.banner());
        assertTrue(run.recorder().snapshot().stream().anyMatch(e -> e.kind() == EventKind.NOTE
                && e.subject().startsWith("observer failed")), "the observer's failures are on record");
    }

    @Test
    void aPauseThatMeetsTheRunsEndNeverLeavesAnEndedRunPaused() throws Exception {
        GatedClock clock = new GatedClock();
        Run run = new Run(lab, spec(MemoryCounterLab.Strategies.HANG, 1), clock);
        run.start();
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (run.phase() != RunPhase.RUNNING && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertEquals(RunPhase.RUNNING, run.phase());
        Thread pauser = new Thread(run::pause, "pauser");
        clock.hold(pauser);
        pauser.start();
        assertTrue(clock.awaitArrival(10), "the pauser reached the clock");
        // The pause has checked that the run is running and is about to act; the run is stopped now.
        run.stop();
        try {
            run.awaitOutcome(Duration.ofSeconds(1));
        } catch (TimeoutException e) {
            // The run waits for the pause to finish what it started: that is the fix.
        }
        clock.release();
        pauser.join(WAIT.toMillis());
        run.awaitOutcome(WAIT);
        assertEquals(RunPhase.ENDED, run.phase(), "an ended run stays ended");
        List<Event> events = run.recorder().snapshot();
        assertEquals(EventKind.RUN_ENDED, events.get(events.size() - 1).kind(), "nothing happens after the end");
        run.resume();
        assertEquals(RunPhase.ENDED, run.phase(), "and cannot be resumed");
    }

    @Test
    @Tag("slow")
    void workersThatWillNotStopCostTheRunOneDeadlineNotOnePerWorker() throws Exception {
        Run run = new Run(lab, spec(MemoryCounterLab.Strategies.STUBBORN, 6), new ManualClock());
        try {
            run.start();
            Poll.until("all six stubborn workers wait",
                    () -> run.recorder().snapshot().stream().filter(e -> e.kind() == EventKind.STATE
                            && e.state() == ActorState.WAITING).count() >= 6);
            long stopped = System.nanoTime();
            run.stop();
            // Six workers at five seconds each were half a minute; the whole run now gets five.
            run.awaitOutcome(Duration.ofMillis(Run.TEARDOWN_MILLIS + 3_000));
            assertTrue(System.nanoTime() - stopped < (Run.TEARDOWN_MILLIS + 3_000) * 1_000_000L);
            assertTrue(run.recorder().snapshot().stream().anyMatch(e -> e.kind() == EventKind.ERROR
                    && e.subject().endsWith("did not stop")), "the workers that did not stop are named");
        } finally {
            lab.letGo.countDown();
        }
    }
}
