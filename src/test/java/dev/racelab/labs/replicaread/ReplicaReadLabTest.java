package dev.racelab.labs.replicaread;

import dev.racelab.backend.BackendSettings;
import dev.racelab.backend.Backends;
import dev.racelab.backend.PgStandbyPair;
import dev.racelab.backend.StartupListener;
import dev.racelab.engine.Clock;
import dev.racelab.engine.Event;
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
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The replica-read lab on RaceLab's own primary and standby (real processes, whichever shared
 * servers the suite uses): with the defaults (the standby's replay paused at client-1's commits)
 * reading the standby at once, or after a commit that waited only for the standby's flush, reads
 * stale data; a commit that waits for the replay, a reader that waits for its writer's LSN, and
 * reading the primary never do; a stalled stream makes a remote-apply commit wait it out.
 */
@Tag("lab")
class ReplicaReadLabTest {

    private static final Duration WAIT = Duration.ofSeconds(120);

    private final ReplicaReadLab lab = new ReplicaReadLab(TestServers.topologies());

    private Outcome run(RunSpec spec) throws Exception {
        return run(lab, spec);
    }

    private static Outcome run(ReplicaReadLab on, RunSpec spec) throws Exception {
        Run run = new Run(on, spec, Clock.system());
        run.start();
        return run.awaitOutcome(WAIT);
    }

    @Test
    void withTheDefaultsReadingTheStandbyAtOnceOrAfterASyncCommitIsStale() throws Exception {
        for (String strategy : List.of("read-standby", "sync-standby")) {
            for (int i = 0; i < 2; i++) {
                Outcome outcome = run(lab.defaults().withStrategy(strategy).withSeed(i));
                assertEquals(Verdict.RACE, outcome.verdict(), strategy + ": " + outcome.headline());
                long stale = outcome.metrics().get("staleReads").longValue();
                // client-1's ten commits each meet a paused replay: each of its reads is stale.
                assertTrue(stale >= 10, strategy + ": at least client-1's ten reads were stale, got " + stale);
                assertEquals(stale, outcome.violations().get(ReplicaReadScenario.STALE), "the count agrees");
                assertTrue(outcome.metrics().get("longestCatchUpMs").doubleValue() > 0,
                        "a stale read stayed stale a while");
                assertTrue(outcome.explanation().contains("client-"), outcome.explanation());
            }
        }
    }

    @Test
    void theFixesReadTheirOwnWriteEveryTime() throws Exception {
        for (String strategy : List.of("remote-apply", "wait-for-lsn", "read-primary")) {
            for (int i = 0; i < 2; i++) {
                Outcome outcome = run(lab.defaults().withStrategy(strategy).withSeed(i));
                assertEquals(Verdict.SAFE, outcome.verdict(), strategy + ": " + outcome.headline() + " — "
                        + outcome.explanation());
                assertEquals(20, outcome.metrics().get("reads").longValue(), "every read was made");
                assertEquals(0, outcome.metrics().get("staleReads").longValue());
            }
        }
    }

    /**
     * A standby promoted mid-run is a second primary: every read there after it is stale for good,
     * and the verdict says why; the next run finds the pair made anew and races as usual.
     */
    @Test
    void aPromotedStandbyIsStaleForGoodAndTheNextRunHasThePairAnew() throws Exception {
        Outcome promoted = run(lab.defaults().withOps(3)
                .withGates(GatePlan.NONE.with(ReplicaReadLab.STANDBY_PROMOTED.id(), 0, GateRule.fixed(1))));
        assertEquals(Verdict.RACE, promoted.verdict(), promoted.headline() + " — " + promoted.explanation());
        assertTrue(promoted.explanation().contains("was promoted"), promoted.explanation());
        assertTrue(promoted.metrics().get("staleReads").longValue() >= 3, "client-1's three reads were stale");

        Outcome next = run(lab.defaults());
        assertEquals(Verdict.RACE, next.verdict(), next.headline() + " — " + next.explanation());
        assertTrue(next.explanation().contains("had not replayed"), "a standby again: " + next.explanation());
        assertFalse(TestServers.topologies().standbyPair().standbyPromoted(), "the pair was made anew");
    }

    /**
     * A primary and standby the user names (here: RaceLab's own pair, reached by their addresses as
     * someone else's would be): the race shows unprovoked, a commit that waits for the replay
     * fixes it, and the faults on replication, which RaceLab inflicts only on its own servers, are
     * refused in words.
     */
    @Test
    void onAPrimaryAndStandbyTheUserNamesTheRaceShowsAndAStalledStreamIsRefused(@TempDir Path home) throws Exception {
        PgStandbyPair own = TestServers.topologies().standbyPair();
        try (Backends named = new Backends(new BackendSettings(Optional.of(own.primary().address()), Optional.empty(),
                Optional.of(own.standby().address())), home, StartupListener.SILENT)) {
            ReplicaReadLab onNamed = new ReplicaReadLab(named);
            assertTrue(onNamed.refuses(onNamed.defaults()).orElse("").contains("only to its own"),
                    "the default's paused replay is refused on servers the user named, before anything runs");
            // Unprovoked: about one read in six is stale here; a hundred reads show it.
            RunSpec plain = onNamed.defaults().withGates(GatePlan.NONE).withOps(50);
            assertTrue(onNamed.refuses(plain).isEmpty());
            Outcome stale = run(onNamed, plain);
            assertEquals(Verdict.RACE, stale.verdict(), stale.headline() + " — " + stale.explanation());
            Outcome applied = run(onNamed, plain.withStrategy("remote-apply"));
            assertEquals(Verdict.SAFE, applied.verdict(), applied.headline() + " — " + applied.explanation());
            Outcome refused = run(onNamed, plain.withGates(GatePlan.NONE.with(
                    ReplicaReadLab.STREAM_STALLS.id(), GateRule.fixed(1))));
            assertEquals(Verdict.ERROR, refused.verdict(), "a run the window starts anyway fails at the fault");
            assertTrue(refused.explanation().contains("only to its own"), refused.explanation());
            assertFalse(named.standbyPair().ours(), "RaceLab does not take the named servers for its own");
        }
        own.probe();
    }

    @Test
    void aRemoteApplyCommitWaitsOutAStalledStreamAndTheLanesShowItHeld() throws Exception {
        RunSpec spec = lab.defaults().withStrategy("remote-apply").withWorkers(1).withOps(3).withObserve(true)
                .withGates(GatePlan.NONE.with(ReplicaReadLab.STREAM_STALLS.id(), GateRule.fixed(1)));
        Run run = new Run(lab, spec, Clock.system());
        run.start();
        Outcome outcome = run.awaitOutcome(WAIT);
        assertEquals(Verdict.SAFE, outcome.verdict(), outcome.headline());
        double mean = outcome.metrics().get("meanCommitMs").doubleValue();
        assertTrue(mean >= 90, "each commit waited for the held stream (100 ms), took " + mean + " ms on average");
        // The server lanes: at some read the primary had sent more than the standby had received.
        List<Event> events = run.recorder().snapshot();
        long sent = 0;
        long received = 0;
        boolean gap = false;
        for (Event e : events) {
            if (e.kind() != EventKind.SERVER_VALUE) {
                continue;
            }
            String lane = run.actors().stream().filter(a -> a.id() == e.actor()).findFirst().orElseThrow().name();
            if (lane.equals(ReplicationObserver.SENT)) {
                sent = e.value();
            } else if (lane.equals(ReplicationObserver.RECEIVED)) {
                received = e.value();
            }
            gap |= sent > received;
        }
        assertTrue(gap, "a server lane showed WAL sent to the relay and not yet received by the standby");
    }
}
