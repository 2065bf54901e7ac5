package dev.racelab.labs.counter;

import dev.racelab.engine.Clock;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.GatePlan;
import dev.racelab.engine.GateRule;
import dev.racelab.engine.Event;
import dev.racelab.engine.Outcome;
import dev.racelab.engine.Run;
import dev.racelab.engine.RunPhase;
import dev.racelab.engine.RunSpec;
import dev.racelab.engine.Verdict;
import dev.racelab.support.PgProbe;
import dev.racelab.support.Poll;
import dev.racelab.engine.view.LabView;
import dev.racelab.engine.view.Panel;
import dev.racelab.support.SentStatements;
import dev.racelab.support.TestServers;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The counter lab against a real PostgreSQL. */
@Tag("lab")
class CounterLabTest {

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final GatePlan AFTER_READ_5MS = GatePlan.NONE.with("after-read", GateRule.fixed(5));

    private final CounterLab lab = new CounterLab(TestServers.backends());

    private Outcome run(RunSpec spec) throws Exception {
        Run run = new Run(lab, spec, Clock.system());
        run.start();
        return run.awaitOutcome(WAIT);
    }

    private RunSpec eightByFifty(String strategy) {
        return lab.defaults().withStrategy(strategy).withWorkers(8).withOps(50).withGates(AFTER_READ_5MS);
    }

    @Test
    void readModifyWriteLosesIncrementsInTenRunsOutOfTen() throws Exception {
        for (int i = 0; i < 10; i++) {
            Outcome outcome = run(eightByFifty("read-modify-write").withSeed(i));
            assertEquals(Verdict.RACE, outcome.verdict(), outcome.banner());
            long lost = outcome.violations().get(CounterScenario.LOST);
            assertTrue(lost > 0);
            assertEquals(400L, outcome.metrics().get("committedIncrements"));
            assertEquals(400 - lost, outcome.metrics().get("finalValue"));
            assertTrue(outcome.headline().endsWith("increments lost") || outcome.headline().endsWith("increment lost"));
            assertTrue(!outcome.places().isEmpty(), "the lost increments are marked on the timeline");
        }
    }

    @Test
    void thePanelAndThePictureCountTheLostIncrementsAsTheVerdictDoes() throws Exception {
        Run run = new Run(lab, eightByFifty("read-modify-write"), Clock.system());
        run.start();
        Outcome outcome = run.awaitOutcome(WAIT);
        assertEquals(Verdict.RACE, outcome.verdict(), outcome.banner());
        LabView view = lab.view(run.record().header());
        run.recorder().snapshot().forEach(view::accept);
        String lost = String.valueOf(outcome.violations().get(CounterScenario.LOST));
        List<String> shown = view.panels().stream().filter(Panel.Values.class::isInstance)
                .flatMap(panel -> ((Panel.Values) panel).rows().stream())
                .filter(row -> row.label().equals("increments lost")).map(Panel.Value::value).toList();
        assertEquals(List.of(lost), shown, "the panel's lost increments are the banner's");
    }

    /**
     * A lab's client sends what a plain program would, and no more: an extra round trip (a
     * transaction around a lone UPDATE) makes the client slower than a plain one and, taken while
     * the row is locked, changes the race the lab shows.
     */
    @Test
    void eachIncrementSendsWhatAPlainProgramSends() throws Exception {
        Map<String, Integer> plain = Map.of("read-modify-write", 2, "atomic-update", 1,
                "select-for-update", 4, "serializable-retry", 4);
        for (Map.Entry<String, Integer> strategy : plain.entrySet()) {
            long sent;
            try (SentStatements wire = new SentStatements()) {
                Outcome outcome = run(lab.defaults().withStrategy(strategy.getKey()).withWorkers(1).withOps(20)
                        .withGates(GatePlan.NONE));
                assertEquals(Verdict.SAFE, outcome.verdict(), outcome.banner());
                sent = wire.sentBy(lab.workerName(0));
            }
            assertEquals(strategy.getValue() * 20L, sent, strategy.getKey() + ": statements for 20 increments");
        }
    }

    /**
     * Increments on their own commit as they land, and two replies can reach their clients in the
     * other order: the panel's count, built event by event as the window builds it, takes the row's
     * value from the server's order, so a run that loses nothing never shows a loss.
     */
    @Test
    void atomicUpdateNeverShowsAnIncrementLostWhileItRuns() throws Exception {
        Run run = new Run(lab, lab.defaults().withStrategy("atomic-update").withWorkers(8).withOps(400)
                .withGates(GatePlan.NONE), Clock.system());
        run.start();
        Outcome outcome = run.awaitOutcome(WAIT);
        assertEquals(Verdict.SAFE, outcome.verdict(), outcome.banner());
        LabView view = lab.view(run.record().header());
        long shownLost = 0;
        for (Event event : run.recorder().snapshot()) {
            view.accept(event);
            for (Panel panel : view.panels()) {
                if (panel instanceof Panel.Values values) {
                    for (Panel.Value row : values.rows()) {
                        if (row.label().startsWith("increments lost")) {
                            shownLost = Math.max(shownLost, Long.parseLong(row.value()));
                        }
                    }
                }
            }
        }
        assertEquals(0, shownLost, "the most increments the panel ever showed lost");
    }

    @Test
    void atomicUpdateCountsEveryIncrementUnderTheSameDelay() throws Exception {
        Outcome outcome = run(eightByFifty("atomic-update"));
        assertEquals(Verdict.SAFE, outcome.verdict(), outcome.banner());
        assertEquals(400L, outcome.metrics().get("finalValue"));
        assertEquals("all 400 increments counted", outcome.headline());
    }

    @Test
    void selectForUpdateCountsEveryIncrementUnderTheSameDelay() throws Exception {
        Outcome outcome = run(eightByFifty("select-for-update"));
        assertEquals(Verdict.SAFE, outcome.verdict(), outcome.banner());
        assertEquals(400L, outcome.metrics().get("finalValue"));
    }

    @Test
    void serializableRetriesUntilEveryIncrementCounts() throws Exception {
        Outcome outcome = run(eightByFifty("serializable-retry").withOps(10));
        assertEquals(Verdict.SAFE, outcome.verdict(), outcome.banner());
        assertEquals(80L, outcome.metrics().get("finalValue"));
        assertTrue(outcome.metrics().get("retries").longValue() > 0, "with a delay between read and write, "
                + "concurrent transactions conflict and retry");
    }

    @RepeatedTest(5)
    void steppingAReadsBReadsAWritesBWritesLosesExactlyOneIncrement() throws Exception {
        Run run = new Run(lab, lab.defaults().withWorkers(2).withOps(1).withStepMode(true), Clock.system());
        run.start();
        int a = 0;
        int b = 1;
        assertEquals(CounterLab.BEFORE_READ, run.gates().awaitSettled(a, WAIT));
        assertEquals(CounterLab.BEFORE_READ, run.gates().awaitSettled(b, WAIT));
        run.step(a);
        assertEquals(CounterLab.AFTER_READ, run.gates().awaitSettled(a, WAIT), "A has read 0");
        run.step(b);
        assertEquals(CounterLab.AFTER_READ, run.gates().awaitSettled(b, WAIT), "B has read 0");
        run.step(a);
        assertNull(run.gates().awaitSettled(a, WAIT), "A wrote 1 and is done");
        run.step(b);
        Outcome outcome = run.awaitOutcome(WAIT);

        assertEquals(Verdict.RACE, outcome.verdict());
        assertEquals("1 increment lost", outcome.headline());
        assertEquals(1L, outcome.violations().get(CounterScenario.LOST));
        assertEquals(1L, outcome.metrics().get("finalValue"));
        assertEquals(1, outcome.places().size(), "B's write is the one that lost A's increment");
        assertEquals(run.workerActor(b), run.recorder().get(outcome.places().get(0)).actor());
        assertEquals(1L, outcome.metrics().get("overwritingWrites"));

        // The timeline's arrow: from B's overwriting write back to A's write, which B never saw.
        List<Event> links = run.recorder().snapshot().stream().filter(e -> e.kind() == EventKind.OVERWROTE).toList();
        assertEquals(1, links.size(), links.toString());
        assertEquals(run.workerActor(b), links.get(0).actor());
        Event overwritten = run.recorder().get(links.get(0).value());
        assertEquals(EventKind.WRITE, overwritten.kind());
        assertEquals(run.workerActor(a), overwritten.actor());
        assertEquals(1L, overwritten.value(), "A wrote 1; B wrote 1 over it");
    }

    @Test
    void withSelectForUpdateTheSecondReaderWaitsInPostgresUntilTheFirstCommits() throws Exception {
        Run run = new Run(lab, lab.defaults().withStrategy("select-for-update").withWorkers(2).withOps(1)
                .withStepMode(true).withObserve(true), Clock.system());
        run.start();
        try (PgProbe probe = new PgProbe()) {
            run.gates().awaitSettled(0, WAIT);
            run.gates().awaitSettled(1, WAIT);
            run.step(0);
            assertEquals(CounterLab.AFTER_READ, run.gates().awaitSettled(0, WAIT), "A holds the row lock");
            run.step(1);
            assertTrue(Poll.eventually(WAIT, () -> probe.waitingAmong(PgProbe.pidsOf(run)).contains("racelab:client-2")),
                    "PostgreSQL shows client-2 waiting for the row client-1 locked");
            assertNull(run.gates().haltedAt(1), "B is blocked on the server, not at a gate");
            assertTrue(Poll.eventually(WAIT, () -> serverSays(run, EventKind.SERVER_WAITS, 1,
                    "for client-1 (row lock)")), "the server lane shows client-2 waiting for client-1");
            assertTrue(serverSays(run, EventKind.SERVER_HOLDS, 0, "the counter row"),
                    "and client-1 holding the counter row");
            run.step(0);
            assertEquals(CounterLab.AFTER_READ, run.gates().awaitSettled(1, WAIT), "B got the lock after A committed");
            assertEquals(List.of(), probe.waitingAmong(PgProbe.pidsOf(run)));
            run.step(1);
        }
        Outcome outcome = run.awaitOutcome(WAIT);
        assertEquals(Verdict.SAFE, outcome.verdict());
        assertEquals(2L, outcome.metrics().get("finalValue"));
    }

    private static boolean serverSays(Run run, EventKind kind, int worker, String subject) {
        return run.recorder().snapshot().stream().anyMatch(e -> e.kind() == kind
                && e.value() == run.workerActor(worker) && subject.equals(e.subject()));
    }

    @Test
    void theReleaseThatWokeAWaiterIsKnown() throws Exception {
        Run run = new Run(lab, lab.defaults().withStrategy("select-for-update").withWorkers(4).withOps(10)
                .withGates(AFTER_READ_5MS), Clock.system());
        run.start();
        assertEquals(Verdict.SAFE, run.awaitOutcome(WAIT).verdict());
        List<dev.racelab.engine.Event> wakeUps = run.recorder().snapshot().stream()
                .filter(e -> e.kind() == EventKind.WOKEN).toList();
        assertTrue(wakeUps.size() > 10, "with four workers and a 5 ms hold, most acquisitions follow a release");
        for (dev.racelab.engine.Event woken : wakeUps) {
            dev.racelab.engine.Event cause = run.recorder().get(woken.value());
            assertEquals(EventKind.LOCK_RELEASED, cause.kind());
            assertTrue(cause.actor() != woken.actor(), "a worker is woken by someone else's release");
        }
    }

    @Test
    void stoppingARunWithLocksHeldAndWaitersLeavesNoSessionAndNoLock() throws Exception {
        // Client-1 halts holding the row; the others halt before their first read until it does
        // (else one of them could take the row first and finish its increments before client-1).
        GatePlan breakpoint = GatePlan.NONE.with("after-read", 0, GateRule.BREAKPOINT)
                .with("before-read", 1, GateRule.BREAKPOINT).with("before-read", 2, GateRule.BREAKPOINT)
                .with("before-read", 3, GateRule.BREAKPOINT);
        Run run = new Run(lab, lab.defaults().withStrategy("select-for-update").withWorkers(4).withOps(5)
                .withGates(breakpoint), Clock.system());
        run.start();
        try (PgProbe probe = new PgProbe()) {
            assertEquals(CounterLab.AFTER_READ, run.gates().awaitSettled(0, WAIT));
            for (int worker = 1; worker <= 3; worker++) {
                assertEquals(CounterLab.BEFORE_READ, run.gates().awaitSettled(worker, WAIT));
                run.step(worker);
            }
            // This run's sessions only: other tests may share the server.
            assertTrue(Poll.eventually(WAIT, () -> PgProbe.pidsOf(run).size() == 4
                            && probe.waitingAmong(PgProbe.pidsOf(run)).size() == 3),
                    "three clients wait for client-1's row lock: " + probe.waitingAmong(PgProbe.pidsOf(run)));
            Set<Integer> pids = PgProbe.pidsOf(run);
            assertEquals(4, pids.size());

            run.stop();
            Outcome outcome = run.awaitOutcome(WAIT);

            assertEquals(RunPhase.ENDED, run.phase());
            assertTrue(outcome.explanation().startsWith("Stopped by the user"), outcome.explanation());
            assertEquals(List.of(), probe.sessionsAlive(pids), "no session of the run is left");
            assertEquals(List.of(), probe.locksOf(pids), "no lock of the run is left");
            assertTrue(Thread.getAllStackTraces().keySet().stream()
                    .noneMatch(t -> t.getName().matches("client-\\d+") && t.isAlive()), "no worker thread is left");
        }
    }

    @Test
    void manyClientsShareAPoolAndStillCountExactly() throws Exception {
        Outcome outcome = run(lab.defaults().withStrategy("atomic-update").withWorkers(200).withOps(5));
        assertEquals(Verdict.SAFE, outcome.verdict(), outcome.banner());
        assertEquals(1000L, outcome.metrics().get("finalValue"));
    }
}
