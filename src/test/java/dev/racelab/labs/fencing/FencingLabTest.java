package dev.racelab.labs.fencing;

import dev.racelab.engine.Clock;
import dev.racelab.engine.Event;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.GatePlan;
import dev.racelab.engine.GateRule;
import dev.racelab.engine.Outcome;
import dev.racelab.engine.Run;
import dev.racelab.engine.RunSpec;
import dev.racelab.engine.Verdict;
import dev.racelab.engine.view.LabView;
import dev.racelab.support.RecordingSketch;
import dev.racelab.support.TestServers;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

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
        return lab.defaults().withStrategy(strategy).withWorkers(10).withOps(20).withSeed(7)
                .withGates(GatePlan.NONE.with(gate, GateRule.parseDelay(delay)));
    }

    /**
     * The picture's writes, newest first, are in the order PostgreSQL committed them, as the
     * banner has it: the newest is the write that landed last (the token the book holds at the
     * end), and a stale write stands right before the newer write it replaced (the token the
     * book's trigger reported), never where its reply happened to come in. The source article's
     * check with its pause, and sixteen clients writing blindly at once, five runs each: replies
     * often come back in another order than the commits.
     */
    @Test
    void thePicturesWritesAreInTheBooksCommitOrderAsTheBannerSays() throws Exception {
        for (int i = 0; i < 10; i++) {
            RunSpec spec = i % 2 == 0 ? lab.defaults().withStrategy("check-then-write").withSeed(i)
                    : lab.defaults().withStrategy("blind-write").withWorkers(16).withOps(8).withSeed(i)
                            .withGates(GatePlan.NONE);
            Run run = start(spec);
            Outcome outcome = run.awaitOutcome(WAIT);
            List<Event> events = run.recorder().snapshot();
            // What the book's trigger said of each stale write: the token of the write it replaced.
            Map<Long, Long> replacedBy = new HashMap<>();
            Map<Integer, Long> lastWrite = new HashMap<>();
            for (Event e : events) {
                if (e.kind() == EventKind.WRITE_ACCEPTED) {
                    lastWrite.put(e.actor(), e.value());
                } else if (e.kind() == EventKind.VIOLATION && FencingScenario.STALE.equals(e.subject())) {
                    replacedBy.put(lastWrite.get(e.actor()), e.value());
                }
            }
            LabView view = lab.view(run.record().header());
            events.forEach(view::accept);
            RecordingSketch sketch = new RecordingSketch(600, 400);
            view.draw(sketch);
            List<String> texts = sketch.texts();
            int strip = texts.indexOf(texts.stream().filter(t -> t.startsWith(FencingScenario.STALE + ": "))
                    .findFirst().orElseThrow());
            List<String> chips = new ArrayList<>();
            List<String> marks = new ArrayList<>();
            // The writes that landed: the strip up to the rejected ones, if any.
            for (int t = strip; t < texts.size() - 1 && !texts.get(t).startsWith("latest rejected"); t++) {
                if (texts.get(t).matches("#\\d+") && texts.get(t + 1).matches("ok|stale|no")) {
                    chips.add(texts.get(t));
                    marks.add(texts.get(t + 1));
                }
            }
            String said = "run " + i + " (" + spec.strategy() + "): the picture " + chips + " " + marks + "; the banner: "
                    + outcome.banner();
            assertEquals("#" + outcome.metrics().get("finalToken"), chips.get(0), said);
            for (int c = 0; c + 1 < chips.size(); c++) {
                long token = Long.parseLong(chips.get(c).substring(1));
                if (marks.get(c).equals("stale")) {
                    assertEquals("#" + replacedBy.get(token), chips.get(c + 1), said);
                }
            }
        }
    }

    @Test
    void theArticlesStressTestIsSafeWithFencedCompareAndSet() throws Exception {
        long started = System.nanoTime();
        Run run = start(lab.defaults().withStrategy("fenced-cas").withWorkers(1000).withOps(1));
        Outcome outcome = run.awaitOutcome(WAIT);
        long millis = (System.nanoTime() - started) / 1_000_000;
        System.out.printf("[fencing stress] 1000 clients, fenced-cas, on %s: %s in %d ms (workers ran %s ms)%n",
                TestServers.postgres().describe(), outcome.verdict(), millis, outcome.metrics().get("runMs"));

        assertEquals(Verdict.SAFE, outcome.verdict(), outcome.banner() + "\n" + outcome.explanation());
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
        Run run = start(lab.defaults().withStrategy("check-then-write").withWorkers(2).withOps(1)
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
        Run run = start(lab.defaults().withStrategy("fenced-cas").withWorkers(2).withOps(1)
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
