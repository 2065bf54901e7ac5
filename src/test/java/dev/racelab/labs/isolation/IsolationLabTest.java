package dev.racelab.labs.isolation;

import dev.racelab.engine.ActorState;
import dev.racelab.engine.Clock;
import dev.racelab.engine.Event;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.Outcome;
import dev.racelab.engine.Run;
import dev.racelab.engine.RunSpec;
import dev.racelab.engine.Verdict;
import dev.racelab.isolation.SpecReader;
import dev.racelab.support.TestServers;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The isolation lab on a real PostgreSQL: a spec's sessions as lanes, a permutation played as
 * isolationtester plays it (who waited for whom, each step's rows and errors on its lane), the
 * verdict from the teaching spec's check, an order made by hand in step mode, and nothing left
 * on the server.
 */
@Tag("lab")
// Each spec makes and drops a database: nothing else of the build (SilentServerTest counts on its
// timing beside the others) runs beside these.
@Isolated
class IsolationLabTest {

    private static final Duration WAIT = Duration.ofSeconds(60);

    private final IsolationLab lab = new IsolationLab(TestServers.backends());

    private static Outcome run(Run run) throws Exception {
        run.start();
        return run.awaitOutcome(WAIT);
    }

    private static List<String> lanes(Run run) {
        return run.record().events().snapshot().stream().filter(e -> e.kind() == EventKind.ACTOR).map(Event::subject).toList();
    }

    private static List<Event> of(Run run, EventKind kind) {
        return run.record().events().snapshot().stream().filter(e -> e.kind() == kind).toList();
    }

    private static String laneOf(Run run, Event e) {
        return run.actors().get(e.actor()).name();
    }

    @Test
    void theDefaultLosesBobsOrAlicesDepositAtReadCommittedAndShowsWhoWaitedForWhom() throws Exception {
        Run run = new Run(lab, lab.defaults(), Clock.system());
        Outcome outcome = run(run);
        assertEquals(Verdict.RACE, outcome.verdict(), outcome.banner());
        assertEquals("anomaly: Lost update (P4)", outcome.headline());
        assertTrue(outcome.explanation().startsWith("Bob waits for Alice, then writes 120 over her 110"),
                outcome.explanation());
        assertEquals(List.of("run", "alice", "bob", "observer"), lanes(run));

        List<Event> waits = run.record().events().snapshot().stream().filter(e -> e.kind() == EventKind.STATE
                && e.state() == ActorState.WAITING).toList();
        assertEquals(1, waits.size());
        assertEquals("bob", laneOf(run, waits.get(0)));
        assertEquals("b_deposit blocked by alice", waits.get(0).subject());

        List<Event> anomalies = of(run, EventKind.VIOLATION);
        assertEquals(1, anomalies.size());
        assertEquals("observer", laneOf(run, anomalies.get(0)));
        StepTable check = StepTable.decode(of(run, EventKind.STEP_RESULT).stream()
                .filter(e -> laneOf(run, e).equals("observer")).findFirst().orElseThrow().subject());
        assertEquals(List.of("balance", "should_be", "anomaly"), check.columns());
        assertEquals(List.of(List.of("120", "130", "t")), check.rows());
        assertEquals(List.of(), of(run, EventKind.STEP_FAILED));
        assertEquals(9L, outcome.metrics().get("steps").longValue());
    }

    @Test
    void atRepeatableReadBobIsRefusedAndTheBannerSaysSo() throws Exception {
        Run run = new Run(lab, lab.defaults().with(IsolationLab.PERMUTATION, 2), Clock.system());
        Outcome outcome = run(run);
        assertEquals(Verdict.SAFE, outcome.verdict(), outcome.banner());
        assertEquals("no anomaly: bob · b_deposit: 40001 could not serialize access due to concurrent update",
                outcome.headline());
        List<Event> failed = of(run, EventKind.STEP_FAILED);
        assertEquals(1, failed.size());
        assertEquals("bob", laneOf(run, failed.get(0)));
    }

    @Test
    void byHandInStepModeTheOrderIsTheOneTheUserReleases() throws Exception {
        // Read committed's steps (permutation 1), but Alice goes first, whole, then Bob, then the
        // check: one after the other, nothing is lost.
        Run run = new Run(lab, lab.defaults().withStrategy("by-hand").withStepMode(true), Clock.system());
        run.start();
        int alice = 0;
        int bob = 1;
        int observer = 2;
        List<Integer> order = List.of(alice, alice, alice, alice, bob, bob, bob, bob, observer);
        for (int worker : order) {
            assertNotNull(run.gates().awaitSettled(worker, WAIT), "worker " + worker + " halted at its gate");
            assertTrue(run.step(worker));
            // As a user does: the next session is released once this one's step is over (it halts
            // at its next gate, or has none left).
            run.gates().awaitSettled(worker, WAIT);
        }
        Outcome outcome = run.awaitOutcome(WAIT);
        assertEquals(Verdict.SAFE, outcome.verdict(), outcome.banner());
        assertEquals("no anomaly: Lost update (P4)", outcome.headline());
        assertEquals("The check saw balance 130, should_be 130.", outcome.explanation());
        StepTable check = StepTable.decode(of(run, EventKind.STEP_RESULT).stream()
                .filter(e -> laneOf(run, e).equals("observer")).findFirst().orElseThrow().subject());
        assertEquals(List.of(List.of("130", "130", "f")), check.rows());
    }

    @Test
    void aPlainSpecThatDeadlocksIsJudgedDeadlockAndLeavesNothingOnTheServer() throws Exception {
        IsolationLab deadlocking = lab.withSpec(SpecSource.read("two-rows", "two-rows.spec", """
                setup { CREATE TABLE t (id int PRIMARY KEY); INSERT INTO t VALUES (1), (2); }
                teardown { DROP TABLE t; }
                session s1
                setup { BEGIN; SET deadlock_timeout = '10ms'; }
                step s1a { UPDATE t SET id = id WHERE id = 1; }
                step s1b { UPDATE t SET id = id WHERE id = 2; }
                step s1c { COMMIT; }
                session s2
                setup { BEGIN; SET deadlock_timeout = '10s'; }
                step s2a { UPDATE t SET id = id WHERE id = 2; }
                step s2b { UPDATE t SET id = id WHERE id = 1; }
                step s2c { COMMIT; }
                permutation s1a s2a s2b s1b s1c s2c
                """));
        Run run = new Run(deadlocking, deadlocking.defaults(), Clock.system());
        Outcome outcome = run(run);
        assertEquals(Verdict.DEADLOCK, outcome.verdict(), outcome.banner());
        assertEquals("PostgreSQL broke a deadlock: s1 · s1b was refused (40P01)", outcome.headline());
        assertEquals(List.of("run", "s1", "s2"), lanes(run));
        // Its own scratch database, as the run noted it: another build's runs on this server make
        // and drop theirs meanwhile.
        String scratch = of(run, EventKind.NOTE).stream().map(e -> e.subject())
                .filter(note -> note.startsWith("scratch database ")).findFirst().orElseThrow()
                .split(" ")[2].replace(",", "");
        assertTrue(scratch.startsWith("racelab_isolation_"), scratch);
        try (Connection c = TestServers.connect(); java.sql.PreparedStatement p = c.prepareStatement(
                "SELECT count(*) FROM pg_database WHERE datname = ?")) {
            p.setString(1, scratch);
            try (ResultSet rs = p.executeQuery()) {
                rs.next();
                assertEquals(0, rs.getInt(1), "its scratch database was dropped");
            }
        }
        assertFalse(run.record().events().snapshot().isEmpty());
    }
}
