package dev.racelab.labs.fencing;

import dev.racelab.engine.Clock;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.GatePlan;
import dev.racelab.engine.GateRule;
import dev.racelab.engine.Outcome;
import dev.racelab.engine.Run;
import dev.racelab.engine.RunSpec;
import dev.racelab.engine.Verdict;
import dev.racelab.support.TestServers;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The fencing lab against a real PostgreSQL: the source article's stress test and its flaw. */
@Tag("lab")
class FencingLabTest {

    private static final Duration WAIT = Duration.ofSeconds(120);

    private final FencingLab lab = new FencingLab(TestServers.backends());

    private Run start(RunSpec spec) {
        Run run = new Run(lab, spec, Clock.system());
        run.start();
        return run;
    }

    /**
     * Ten clients, twenty writes each: enough writes that a random delay lets a newer write
     * overtake an older one somewhere, however the threads happen to be scheduled (with five each,
     * a busy machine once ran them all in order).
     */
    private RunSpec spec(String strategy, String gate, String delay) {
        return RunSpec.defaults(lab).withStrategy(strategy).withWorkers(10).withOps(20).withSeed(7)
                .withGates(GatePlan.NONE.with(gate, GateRule.parseDelay(delay)));
    }

    @Test
    void theArticlesStressTestIsSafeWithFencedCompareAndSet() throws Exception {
        long started = System.nanoTime();
        Run run = start(RunSpec.defaults(lab).withStrategy("fenced-cas").withWorkers(1000).withOps(1));
        Outcome outcome = run.awaitOutcome(WAIT);
        long millis = (System.nanoTime() - started) / 1_000_000;
        System.out.printf("[fencing stress] 1000 clients, fenced-cas, on %s: %s in %d ms (workers ran %s ms)%n",
                TestServers.postgres().describe(), outcome.verdict(), millis, outcome.metrics().get("runMs"));

        assertEquals(Verdict.SAFE, outcome.verdict(), outcome.banner());
        assertEquals(1000L, outcome.metrics().get("maxToken"));
        assertEquals(outcome.metrics().get("expectedPrice"), outcome.metrics().get("finalPrice"));
        assertEquals(1000L, outcome.metrics().get("finalToken"));
        assertEquals("final price " + outcome.metrics().get("finalPrice") + " is the price of token 1000",
                outcome.headline());
    }

    @Test
    void blindWriteWithADelayAfterTheTokenRaces() throws Exception {
        Outcome outcome = start(spec("blind-write", "after-token", "0-20")).awaitOutcome(WAIT);
        assertEquals(Verdict.RACE, outcome.verdict(), outcome.banner());
        assertTrue(outcome.violations().get(FencingScenario.STALE) > 0);
        assertEquals(0L, outcome.metrics().get("rejectedWrites"), "a blind write rejects nothing");
    }

    @Test
    void theArticlesCheckThenWriteStillRacesWithADelayAfterTheCheck() throws Exception {
        Outcome outcome = start(spec("check-then-write", "after-check", "0-20")).awaitOutcome(WAIT);
        assertEquals(Verdict.RACE, outcome.verdict(), outcome.banner());
        assertTrue(outcome.violations().get(FencingScenario.STALE) > 0, "stale writes got past the check");
    }

    @Test
    void fencedCompareAndSetIsSafeUnderTheSameDelayAndCountsItsRejections() throws Exception {
        Outcome outcome = start(spec("fenced-cas", "after-check", "0-20")).awaitOutcome(WAIT);
        assertEquals(Verdict.SAFE, outcome.verdict(), outcome.banner());
        assertTrue(outcome.metrics().get("rejectedWrites").longValue() > 0, "late writes with old tokens were refused");
        assertEquals(0L, outcome.metrics().get("staleWritesApplied"));
        assertEquals(200L, outcome.metrics().get("maxToken"));
        assertEquals(outcome.metrics().get("expectedPrice"), outcome.metrics().get("finalPrice"));
    }

    /** The article's check, defeated by hand: A checks, B takes a newer token and writes, A writes. */
    @Test
    void steppingCheckThenWriteByHandLetsExactlyOneStaleWriteThrough() throws Exception {
        Run run = start(RunSpec.defaults(lab).withStrategy("check-then-write").withWorkers(2).withOps(1)
                .withStepMode(true));
        int a = 0;
        int b = 1;
        run.gates().awaitSettled(a, WAIT);
        run.gates().awaitSettled(b, WAIT);
        run.step(a);
        assertEquals(FencingLab.AFTER_TOKEN, run.gates().awaitSettled(a, WAIT), "A holds token 1");
        run.step(a);
        assertEquals(FencingLab.AFTER_CHECK, run.gates().awaitSettled(a, WAIT), "A checked: 1 is the latest");
        run.step(b);
        assertEquals(FencingLab.AFTER_TOKEN, run.gates().awaitSettled(b, WAIT), "B holds token 2");
        run.step(b);
        assertEquals(FencingLab.AFTER_CHECK, run.gates().awaitSettled(b, WAIT), "B checked: 2 is the latest");
        run.step(b);
        assertEquals(FencingLab.BEFORE_WRITE, run.gates().awaitSettled(b, WAIT));
        run.step(b);
        assertNull(run.gates().awaitSettled(b, WAIT), "B wrote its price with token 2");
        run.resume();
        Outcome outcome = run.awaitOutcome(WAIT);

        assertEquals(Verdict.RACE, outcome.verdict(), outcome.banner());
        assertEquals("1 stale write applied; final price 101, not token 2's 102", outcome.headline());
        assertEquals(1L, outcome.violations().get(FencingScenario.STALE));
        assertEquals(2L, outcome.metrics().get("maxToken"));
        assertTrue(run.recorder().snapshot().stream()
                .anyMatch(e -> e.kind() == EventKind.TOKEN && e.actor() == run.workerActor(b) && e.value() == 2));
    }

    @Test
    void steppingFencedCompareAndSetTheSameWayRejectsTheStaleWrite() throws Exception {
        Run run = start(RunSpec.defaults(lab).withStrategy("fenced-cas").withWorkers(2).withOps(1)
                .withStepMode(true));
        run.gates().awaitSettled(0, WAIT);
        run.gates().awaitSettled(1, WAIT);
        run.step(0);
        run.gates().awaitSettled(0, WAIT);
        run.step(0);
        assertEquals(FencingLab.AFTER_CHECK, run.gates().awaitSettled(0, WAIT));
        run.step(1);
        run.gates().awaitSettled(1, WAIT);
        for (int gate = 0; gate < 3; gate++) {
            run.step(1);
            run.gates().awaitSettled(1, WAIT);
        }
        assertNull(run.gates().haltedAt(1), "B wrote with token 2 and finished");
        run.resume();
        Outcome outcome = run.awaitOutcome(WAIT);

        assertEquals(Verdict.SAFE, outcome.verdict(), outcome.banner());
        assertEquals(1L, outcome.metrics().get("rejectedWrites"));
        assertTrue(run.recorder().snapshot().stream()
                .anyMatch(e -> e.kind() == EventKind.WRITE_REJECTED && e.actor() == run.workerActor(0)),
                "the rejection is on client-1's lane");
    }
}
