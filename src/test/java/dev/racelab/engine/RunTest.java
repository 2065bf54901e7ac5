package dev.racelab.engine;

import dev.racelab.support.Poll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeoutException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The engine on a manual clock: no test here sleeps, and none talks to a server. */
@Tag("engine")
class RunTest {

    private static final Duration WAIT = Duration.ofSeconds(10);

    private final MemoryCounterLab lab = new MemoryCounterLab();
    private final ManualClock clock = new ManualClock();

    private Run run(RunSpec spec) {
        Run run = new Run(lab, spec, clock, 100_000);
        run.start();
        return run;
    }

    /** Lets time pass a second at a go until the run has ended. */
    private Outcome finish(Run run) throws Exception {
        while (!run.outcome().isDone()) {
            clock.advance(Duration.ofSeconds(1));
            try {
                run.awaitOutcome(Duration.ofMillis(50));
            } catch (TimeoutException notYet) {
                // The workers or the supervisor have not caught up; let more time pass.
            }
        }
        return run.awaitOutcome(WAIT);
    }

    private RunSpec spec(String strategy, int workers, int ops) {
        return lab.defaults().withStrategy(strategy).withWorkers(workers).withOps(ops);
    }

    @Test
    void steppingReadReadWriteWriteLosesExactlyOneIncrement() throws Exception {
        Run run = run(spec("unsafe", 2, 1).withStepMode(true));
        assertEquals(MemoryCounterLab.BEFORE, run.gates().awaitSettled(0, WAIT));
        assertEquals(MemoryCounterLab.BEFORE, run.gates().awaitSettled(1, WAIT));

        assertTrue(run.step(0));
        assertEquals(MemoryCounterLab.AFTER, run.gates().awaitSettled(0, WAIT), "A has read");
        assertTrue(run.step(1));
        assertEquals(MemoryCounterLab.AFTER, run.gates().awaitSettled(1, WAIT), "B has read");
        assertTrue(run.step(0));
        assertNull(run.gates().awaitSettled(0, WAIT), "A wrote and finished");
        assertTrue(run.step(1));

        Outcome outcome = run.awaitOutcome(WAIT);
        assertEquals(Verdict.RACE, outcome.verdict());
        assertEquals(1L, outcome.violations().get("lost"));
        assertEquals(1, lab.value.get());
    }

    @Test
    void steppingOneWorkerThroughBeforeTheOtherLosesNothing() throws Exception {
        Run run = run(spec("unsafe", 2, 1).withStepMode(true));
        run.gates().awaitSettled(0, WAIT);
        run.gates().awaitSettled(1, WAIT);
        run.step(0);
        run.gates().awaitSettled(0, WAIT);
        run.step(0);
        assertNull(run.gates().awaitSettled(0, WAIT));
        run.step(1);
        run.gates().awaitSettled(1, WAIT);
        run.step(1);

        Outcome outcome = run.awaitOutcome(WAIT);
        assertEquals(Verdict.SAFE, outcome.verdict());
        assertEquals(2L, outcome.metrics().get("value"));
    }

    @Test
    void stepIsRefusedForAWorkerThatIsNotHalted() throws Exception {
        Run run = run(spec("hang", 1, 1).withStepMode(true));
        assertEquals(MemoryCounterLab.BEFORE, run.gates().awaitSettled(0, WAIT));
        assertTrue(run.step(0), "a halted worker is released");
        // Released, it goes on to wait for something that is not a gate.
        Poll.until("the released worker waits for something that is not a gate",
                () -> run.recorder().snapshot().stream().anyMatch(e -> e.kind() == EventKind.STATE
                        && e.state() == ActorState.WAITING));
        assertNull(run.gates().haltedAt(0));
        assertTrue(!run.step(0), "a worker that is not halted at a gate cannot be stepped");
        assertTrue(run.recorder().snapshot().stream().filter(e -> e.kind() == EventKind.STEP).count() == 1,
                "only the step that released it is on record");
        run.stop();
        run.awaitOutcome(WAIT);
    }

    @Test
    void aDelayLastsExactlyAsLongAsTheClockSays() throws Exception {
        GatePlan plan = GatePlan.NONE.with("after-read", GateRule.fixed(5_000));
        Run run = run(spec("unsafe", 1, 1).withGates(plan));
        clock.awaitSleepers(1, WAIT);
        clock.advance(Duration.ofMillis(4_999));
        assertEquals(1, clock.sleepers(), "still delayed a millisecond before the end");
        clock.advance(Duration.ofMillis(1));

        Outcome outcome = run.awaitOutcome(WAIT);
        assertEquals(Verdict.SAFE, outcome.verdict());
        List<Event> states = run.recorder().snapshot().stream()
                .filter(e -> e.kind() == EventKind.STATE && e.actor() == run.workerActor(0)).toList();
        Event delayed = states.stream().filter(e -> e.state() == ActorState.DELAYED).findFirst().orElseThrow();
        Event after = states.get(states.indexOf(delayed) + 1);
        assertEquals("after-read", delayed.subject());
        assertEquals(ActorState.RUNNING, after.state());
        assertEquals(5_000_000_000L, after.nanos() - delayed.nanos());
    }

    @Test
    void aDelayAtAGateInsideAnActivityMakesTheActivityLastLonger() throws Exception {
        GatePlan plan = GatePlan.NONE.with("resting", GateRule.fixed(3_000));
        Run run = run(spec("rest", 1, 1).withGates(plan));
        clock.awaitSleepers(1, WAIT);
        clock.advance(Duration.ofMillis(3_000));

        assertEquals(Verdict.SAFE, run.awaitOutcome(WAIT).verdict());
        List<Event> mine = run.recorder().snapshot().stream().filter(e -> e.actor() == run.workerActor(0)).toList();
        assertTrue(mine.stream().noneMatch(e -> e.kind() == EventKind.STATE && e.state() == ActorState.DELAYED),
                "the worker was never shown as delayed: " + mine);
        Event thinking = mine.stream().filter(e -> e.kind() == EventKind.STATE && e.state() == ActorState.THINKING)
                .findFirst().orElseThrow();
        Event next = mine.stream().filter(e -> e.kind() == EventKind.STATE && e.seq() > thinking.seq())
                .findFirst().orElseThrow();
        assertEquals(3_000_000_000L, next.nanos() - thinking.nanos(), "it thought for the three seconds of the delay");
        assertTrue(mine.stream().anyMatch(e -> e.kind() == EventKind.NOTE && e.value() == 3_000
                && e.subject().startsWith("delay at resting")), "the delay is on record");
    }

    @Test
    void aRangeDrawsEachDelayFromTheRangeWithTheRunsSeed() throws Exception {
        GatePlan plan = GatePlan.NONE.with("before-read", GateRule.range(10, 20));
        Run run = run(spec("locked", 1, 3).withGates(plan).withSeed(42));
        assertEquals(Verdict.SAFE, finish(run).verdict());
        List<Event> events = run.recorder().snapshot();
        long delays = events.stream().filter(e -> e.kind() == EventKind.STATE && e.state() == ActorState.DELAYED)
                .count();
        assertEquals(3, delays);
    }

    @Test
    void aBreakpointHaltsOnlyTheWorkerItIsSetFor() throws Exception {
        GatePlan plan = GatePlan.NONE.with("after-read", 1, GateRule.BREAKPOINT);
        Run run = run(spec("locked", 2, 2).withGates(plan));
        // Worker 1 halts holding the lab's lock, so worker 0 may be blocked behind it, not halted:
        // whether it ran through is read from the record once the run is over, not waited for.
        assertEquals(MemoryCounterLab.AFTER, run.gates().awaitSettled(1, WAIT));
        run.step(1);
        assertEquals(MemoryCounterLab.AFTER, run.gates().awaitSettled(1, WAIT), "and halts again next op");
        run.step(1);
        assertEquals(Verdict.SAFE, run.awaitOutcome(WAIT).verdict());
        assertEquals(4, lab.value.get());
        assertTrue(run.recorder().snapshot().stream().noneMatch(e -> e.kind() == EventKind.STATE
                && e.actor() == run.workerActor(0) && e.state() == ActorState.AT_GATE), "worker-1 ran through");
    }

    @Test
    void pauseHaltsEveryoneAtTheirNextGateAndResumeLetsThemFinish() throws Exception {
        GatePlan plan = GatePlan.NONE.with("after-read", GateRule.fixed(1_000));
        Run run = run(spec("locked", 2, 3).withGates(plan));
        clock.awaitSleepers(1, WAIT);
        run.pause();
        assertEquals(RunPhase.PAUSED, run.phase());
        clock.advance(Duration.ofSeconds(1));
        for (int w = 0; w < 2; w++) {
            assertTrue(run.gates().awaitSettled(w, WAIT) != null, "worker " + w + " halted");
        }
        run.resume();
        assertEquals(Verdict.SAFE, finish(run).verdict());
        assertEquals(6, lab.value.get());
    }

    @Test
    void stoppingReleasesHaltedWorkersAndEndsTheRun() throws Exception {
        Run run = run(spec("unsafe", 3, 5).withStepMode(true));
        for (int w = 0; w < 3; w++) {
            run.gates().awaitSettled(w, WAIT);
        }
        run.stop();
        Outcome outcome = run.awaitOutcome(WAIT);
        assertEquals(RunPhase.ENDED, run.phase());
        assertTrue(outcome.explanation().startsWith("Stopped by the user after 0 of 15 operations"),
                outcome.explanation());
        for (Thread thread : Thread.getAllStackTraces().keySet()) {
            assertTrue(!thread.getName().startsWith("worker-") || !thread.isAlive(), thread + " still alive");
        }
    }

    @Test
    void aRunWithoutProgressPastItsTimeoutIsStuckAndNamesTheWorkers() throws Exception {
        Run run = run(spec("hang", 2, 1).withTimeout(Duration.ofSeconds(2)));
        Outcome outcome = finish(run);
        assertEquals(Verdict.STUCK, outcome.verdict());
        assertTrue(outcome.explanation().contains("worker-1") && outcome.explanation().contains("worker-2"),
                outcome.explanation());
    }

    @Test
    void aWorkerThatFailsEndsTheRunWithErrorAndTheReason() throws Exception {
        Run run = run(spec("fail", 2, 1));
        Outcome outcome = run.awaitOutcome(WAIT);
        assertEquals(Verdict.ERROR, outcome.verdict());
        assertTrue(outcome.headline().endsWith("failed"), outcome.headline());
        assertEquals("the lab broke on purpose", outcome.explanation());
        assertTrue(run.recorder().snapshot().stream().anyMatch(e -> e.kind() == EventKind.ERROR));
    }

    @Test
    void violationsAreLinkedToTheirEvents() throws Exception {
        Run run = run(spec("unsafe", 2, 1).withStepMode(true));
        run.gates().awaitSettled(0, WAIT);
        run.gates().awaitSettled(1, WAIT);
        run.step(0);
        run.gates().awaitSettled(0, WAIT);
        run.step(1);
        run.gates().awaitSettled(1, WAIT);
        run.resume();
        Outcome outcome = run.awaitOutcome(WAIT);
        assertEquals(Verdict.RACE, outcome.verdict());
        for (long seq : outcome.places()) {
            assertEquals(EventKind.VIOLATION, run.recorder().get(seq).kind());
        }
    }

    @Test
    void resetGivesAFreshRunWithTheSameSettings() throws Exception {
        RunSpec spec = spec("locked", 2, 2);
        Run first = run(spec);
        first.awaitOutcome(WAIT);
        Run second = first.reset();
        assertEquals(RunPhase.READY, second.phase());
        assertEquals(spec, second.spec());
        assertTrue(second.recorder().snapshot().stream().allMatch(e -> e.kind() == EventKind.ACTOR),
                "a fresh run's record holds only its lanes");
        second.start();
        assertEquals(Verdict.SAFE, second.awaitOutcome(WAIT).verdict());
    }
}
