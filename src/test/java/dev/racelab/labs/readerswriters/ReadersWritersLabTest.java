package dev.racelab.labs.readerswriters;

import dev.racelab.engine.Clock;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.GatePlan;
import dev.racelab.engine.GateRule;
import dev.racelab.engine.Outcome;
import dev.racelab.engine.Run;
import dev.racelab.engine.RunSpec;
import dev.racelab.engine.Verdict;
import dev.racelab.labs.redis.sync.KeySpace;
import dev.racelab.support.Poll;
import dev.racelab.support.TestServers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.Jedis;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Readers and writers against a real Redis. */
@Tag("lab")
class ReadersWritersLabTest {

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final int R1 = 0;
    private static final int R2 = 1;
    private static final int W = 2;

    private static final Jedis PROBE = TestServers.redis().open("test:probe", 5_000);

    private final ReadersWritersLab lab = new ReadersWritersLab(TestServers.backends());

    @AfterAll
    static void closeProbe() {
        PROBE.close();
    }

    private Outcome run(RunSpec spec) throws Exception {
        Run run = new Run(lab, spec, Clock.system());
        run.start();
        return run.awaitOutcome(WAIT);
    }

    /** Five readers that keep the document busy (each read takes 20–40 ms) and one writer. */
    private RunSpec continuousReaders(String strategy) {
        return lab.defaults().withStrategy(strategy).withWorkers(6).withOps(12).withSeed(5)
                .withGates(GatePlan.NONE.with(ReadersWritersLab.BETWEEN_READS.id(), GateRule.range(20, 40))
                        .with(ReadersWritersLab.BETWEEN_WRITES.id(), GateRule.fixed(5)));
    }

    @Test
    void underAStreamOfReadersTheArticlesMonitorMakesTheWriterWaitLongerThanAnyWaitUnderFairOrder()
            throws Exception {
        Outcome readersFirst = run(continuousReaders("reader-preference"));
        Outcome fair = run(continuousReaders("fair"));
        long starvedWait = readersFirst.metrics().get("longestWriterWaitMs").longValue();
        long fairWait = fair.metrics().get("longestWriterWaitMs").longValue();
        System.out.printf("[readers-writers] longest writer wait: reader-preference %d ms, fair %d ms%n",
                starvedWait, fairWait);

        assertEquals(Verdict.RACE, readersFirst.verdict(), readersFirst.banner());
        assertTrue(readersFirst.violations().get(ReadersWritersScenario.STARVATION) > 0);
        assertTrue(starvedWait > fairWait, starvedWait + " ms under reader-preference, " + fairWait + " ms under fair");
        assertEquals(Verdict.SAFE, fair.verdict(), fair.banner() + " " + fair.explanation());
    }

    @ParameterizedTest
    @ValueSource(strings = {"reader-preference", "writer-preference", "fair"})
    void noStrategyThatClaimsExclusionLetsAWriterInWithOthersOrTearsARead(String strategy) throws Exception {
        Outcome outcome = run(lab.defaults().withStrategy(strategy).withWorkers(8).withOps(8).withSeed(9)
                .withGates(GatePlan.NONE.with(ReadersWritersLab.BETWEEN_READS.id(), GateRule.range(0, 4))
                        .with(ReadersWritersLab.BETWEEN_WRITES.id(), GateRule.range(0, 4))
                        .with(ReadersWritersLab.AFTER_WAKE.id(), GateRule.range(0, 4))
                        .with(ReadersWritersLab.BEFORE_REQUEST.id(), GateRule.range(0, 4))));
        assertEquals(0L, outcome.metrics().get("exclusionViolations"), outcome.explanation());
        assertEquals(0L, outcome.metrics().get("tornReads"), outcome.explanation());
        assertEquals(64L, outcome.metrics().get("reads").longValue() + outcome.metrics().get("writes").longValue());
    }

    /**
     * (c) Mesa semantics, staged: reader 1 reads; the writer asks and waits; reader 1 leaves and
     * signals; before the woken writer takes the mutex again, reader 2 gets in and reads half the
     * document; then the writer goes on. Returns the outcome.
     */
    private Outcome readerSlipsInBetweenSignalAndWakeUp(String strategy) throws Exception {
        GatePlan plan = GatePlan.NONE
                .with(ReadersWritersLab.BETWEEN_READS.id(), R1, GateRule.BREAKPOINT)
                .with(ReadersWritersLab.BETWEEN_READS.id(), R2, GateRule.BREAKPOINT)
                .with(ReadersWritersLab.BEFORE_REQUEST.id(), R2, GateRule.BREAKPOINT)
                .with(ReadersWritersLab.BEFORE_REQUEST.id(), W, GateRule.BREAKPOINT)
                .with(ReadersWritersLab.AFTER_WAKE.id(), W, GateRule.BREAKPOINT);
        Run run = new Run(lab, lab.defaults().withStrategy(strategy).withWorkers(3).withOps(1).withGates(plan),
                Clock.system());
        run.start();
        assertEquals(ReadersWritersLab.BETWEEN_READS, run.gates().awaitSettled(R1, WAIT), "reader 1 reads");
        assertEquals(ReadersWritersLab.BEFORE_REQUEST, run.gates().awaitSettled(R2, WAIT));
        assertEquals(ReadersWritersLab.BEFORE_REQUEST, run.gates().awaitSettled(W, WAIT));
        run.step(W);
        String okToWrite = new KeySpace(run.id()).key("ok-to-write:queue");
        Poll.until("the writer waits for reader 1", () -> PROBE.llen(okToWrite) == 1);
        run.step(R1);
        assertEquals(ReadersWritersLab.AFTER_WAKE, run.gates().awaitSettled(W, WAIT), "reader 1 left and signalled");
        run.step(R2);
        assertEquals(ReadersWritersLab.BETWEEN_READS, run.gates().awaitSettled(R2, WAIT),
                "reader 2 slipped in before the writer took the mutex again");
        run.step(W);
        Poll.until("the writer wrote, or checked again and went back to waiting", () -> PROBE.llen(okToWrite) == 1
                || run.recorder().snapshot().stream().anyMatch(e -> e.kind() == EventKind.WRITE
                        && e.actor() == run.workerActor(W)));
        run.gates().setPlan(GatePlan.NONE);
        return run.awaitOutcome(WAIT);
    }

    @Test
    void mesaIfLetsTheWokenWriterWriteWhileAReaderReads() throws Exception {
        Outcome outcome = readerSlipsInBetweenSignalAndWakeUp("mesa-if");
        assertEquals(Verdict.RACE, outcome.verdict(), outcome.banner());
        assertEquals("1 exclusion violation, 1 torn read", outcome.headline());
    }

    @Test
    void theArticlesWhileMakesTheWokenWriterWaitForTheReaderUnderTheSameSchedule() throws Exception {
        Outcome outcome = readerSlipsInBetweenSignalAndWakeUp("reader-preference");
        assertEquals(Verdict.SAFE, outcome.verdict(), outcome.banner());
        assertEquals(0L, outcome.metrics().get("tornReads"));
        assertEquals(1L, outcome.metrics().get("writes"));
    }

    @Test
    void theLastQuarterOfTheClientsWrite() {
        assertEquals(1, ReadersWritersLab.writers(2));
        assertEquals(1, ReadersWritersLab.writers(6));
        assertEquals(2, ReadersWritersLab.writers(8));
    }
}
