package dev.racelab.labs.leasefencing;

import dev.racelab.engine.Actor;
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
import redis.clients.jedis.Jedis;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The lease-fencing lab against a real Redis and a real PostgreSQL, in runs small enough to
 * repeat: two clients, one write each, a 50 ms lease. Client-1 takes the lock at once and stops
 * for 600 ms at the gate under test; client-2 comes after 300 ms, when client-1's lease has long
 * run out, takes the lock and writes; then client-1 wakes and writes. The margins (some 250 ms
 * either side of client-2's write) keep that order on a busy machine.
 */
@Tag("lab")
class LeaseFencingLabTest {

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final int RUNS = 10;

    private final LeaseFencingLab lab = new LeaseFencingLab(TestServers.backends());

    /** Two clients, one write each, a 50 ms lease; client-1 stops for 600 ms at {@code gate}, client-2 comes at 300 ms. */
    private RunSpec spec(String strategy, String gate) {
        return spec(strategy, gate, 50, 600, 300);
    }

    /**
     * Two clients, one write each, a lease of {@code lease} ms; client-1 stops for {@code stall} ms
     * at {@code gate}, client-2 comes after {@code arrival} ms.
     */
    private RunSpec spec(String strategy, String gate, int lease, int stall, int arrival) {
        return RunSpec.defaults(lab).withStrategy(strategy).withWorkers(2).withOps(1)
                .with(LeaseFencingLab.LEASE_MS, lease)
                .withGates(GatePlan.NONE.with(gate, 0, GateRule.fixed(stall))
                        .with(LeaseFencingLab.BEFORE_ACQUIRE.id(), 1, GateRule.fixed(arrival)));
    }

    private static Run run(RunSpec spec) throws Exception {
        Run run = new Run(new LeaseFencingLab(TestServers.backends()), spec, Clock.system());
        run.start();
        run.awaitOutcome(WAIT);
        return run;
    }

    /** {@code runs} runs of {@code spec}, one after another; their outcomes. */
    private static List<Outcome> outcomes(RunSpec spec, int runs) throws Exception {
        List<Outcome> outcomes = new ArrayList<>();
        for (int i = 0; i < runs; i++) {
            outcomes.add(run(spec).record().outcome());
        }
        return outcomes;
    }

    /** The four cases of the issue side by side: each run mostly waits out its pause. */
    @Test
    void aPausePastTheLeaseRacesWithoutFencingAndEveryStaleWriteIsRejectedWithIt() {
        List<CompletableFuture<List<Outcome>>> cases = List.of(
                spec("lease-only", LeaseFencingLab.PAUSE_AFTER_ACQUIRE.id()),
                spec("lease-check-owner", LeaseFencingLab.AFTER_OWNER_CHECK.id()),
                spec("fenced", LeaseFencingLab.PAUSE_AFTER_ACQUIRE.id()),
                spec("fenced", LeaseFencingLab.AFTER_OWNER_CHECK.id())).stream()
                .map(spec -> CompletableFuture.supplyAsync(() -> {
                    try {
                        return outcomes(spec, RUNS);
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                })).toList();
        List<List<Outcome>> results = cases.stream().map(CompletableFuture::join).toList();
        System.out.printf("[lease-fencing] %d runs each: lease-only %s, lease-check-owner %s, fenced %s and %s%n", RUNS,
                verdicts(results.get(0)), verdicts(results.get(1)), verdicts(results.get(2)), verdicts(results.get(3)));

        for (Outcome outcome : results.get(0)) {
            assertEquals(Verdict.RACE, outcome.verdict(), "lease-only: " + outcome.banner());
            assertEquals("1 stale write applied", outcome.headline());
            assertTrue(outcome.explanation().startsWith("client-1 wrote with lease #1 after that lease had run out: "
                    + "client-2 had taken the lock meanwhile and written with #2"), outcome.explanation());
            assertEquals(0L, outcome.metrics().get("rejectedWrites"), "PostgreSQL takes any write");
            assertEquals(1L, outcome.metrics().get("finalToken"), "the stale token stands: " + outcome.metrics());
            assertEquals(1L, outcome.metrics().get("twoHolders"), "client-2 took the lock while client-1 believed it held it");
        }
        for (Outcome outcome : results.get(1)) {
            assertEquals(Verdict.RACE, outcome.verdict(), "lease-check-owner: " + outcome.banner());
            assertEquals(1L, outcome.violations().get(LeaseFencingScenario.STALE));
            assertTrue(outcome.explanation().contains("client-1 had checked with Redis that the lock was its own"),
                    outcome.explanation());
            assertEquals(0L, outcome.metrics().get("skippedWrites"), "the check said yes, then the lease ran out");
        }
        for (List<Outcome> fenced : results.subList(2, 4)) {
            for (Outcome outcome : fenced) {
                assertEquals(Verdict.SAFE, outcome.verdict(), "fenced: " + outcome.banner());
                assertEquals("1 stale write rejected", outcome.headline());
                assertEquals(1L, outcome.metrics().get("rejectedWrites"), "PostgreSQL counted client-1's write as rejected");
                assertEquals(0L, outcome.metrics().get("staleWritesApplied"));
                assertEquals(2L, outcome.metrics().get("finalToken"), "the newer holder's write stands");
                assertEquals(201L, outcome.metrics().get("finalValue"));
            }
        }
    }

    /**
     * A lease keeper saves a client that is merely slow (its process runs, so the lease is
     * renewed and nobody else gets the lock), but not one that is paused: the keeper pauses too.
     * A 400 ms lease, renewed every 133 ms: a keeper late by less than 260 ms still keeps it.
     * Client-1 is slow (or stopped) for 1200 ms; client-2 comes at 700 ms, 300 ms after an
     * unrenewed lease ran out and 500 ms before client-1 goes on.
     */
    @Test
    void aLeaseKeeperSavesASlowClientButNotAPausedOne() throws Exception {
        RunSpec slow = spec("lease-only", LeaseFencingLab.SLOW_WRITE.id(), 400, 1200, 700);
        Outcome slowWithKeeper = run(slow.with(LeaseFencingLab.KEEPER, true)).record().outcome();
        assertEquals(Verdict.SAFE, slowWithKeeper.verdict(), slowWithKeeper.banner() + " " + slowWithKeeper.metrics());
        assertEquals(0L, slowWithKeeper.metrics().get("twoHolders"), "client-2 waited for the renewed lease");
        assertEquals(List.of(201L, 2L), List.of(slowWithKeeper.metrics().get("finalValue"),
                slowWithKeeper.metrics().get("finalToken")), "client-1 wrote, then client-2 after it");

        Outcome slowAlone = run(slow).record().outcome();
        assertEquals(Verdict.RACE, slowAlone.verdict(), "without a keeper the slow client's lease runs out");

        Outcome pausedWithKeeper = run(spec("lease-only", LeaseFencingLab.PAUSE_AFTER_ACQUIRE.id(), 400, 1200, 700)
                .with(LeaseFencingLab.KEEPER, true)).record().outcome();
        assertEquals(Verdict.RACE, pausedWithKeeper.verdict(), "a paused process renews nothing");
        assertTrue(pausedWithKeeper.explanation().contains("a paused process renews nothing"),
                pausedWithKeeper.explanation());
    }

    /**
     * Checking the owner helps when the pause comes before the check: the client sees it lost the
     * lock. Observed, with a 150 ms lease, so that the server lane reads client-1's lease many times.
     */
    @Test
    void checkingTheOwnerAfterThePauseSkipsTheStaleWriteAndTheRunLeavesNothingBehind() throws Exception {
        Run run = run(spec("lease-check-owner", LeaseFencingLab.PAUSE_AFTER_ACQUIRE.id(), 150, 400, 250)
                .withObserve(true));
        Outcome outcome = run.record().outcome();
        assertEquals(Verdict.SAFE, outcome.verdict(), outcome.banner());
        assertEquals(1L, outcome.metrics().get("skippedWrites"));
        assertEquals(List.of(201L, 1L), List.of(outcome.metrics().get("finalValue"), outcome.metrics().get("acceptedWrites")));

        List<Event> events = run.recorder().snapshot();
        List<String> serverLanes = events.stream().filter(e -> e.kind() == EventKind.ACTOR
                        && e.value() == Actor.Kind.SERVER.ordinal())
                .map(Event::subject).toList();
        assertEquals(List.of(LeaseFencingScenario.REDIS_LANE, LeaseFencingScenario.PG_LANE), serverLanes);
        assertTrue(events.stream().anyMatch(e -> e.kind() == EventKind.SERVER_HOLDS && e.subject() != null
                && e.subject().startsWith("lease #1 · ") && e.value() == run.workerActor(0)), "Redis named client-1");
        assertTrue(events.stream().anyMatch(e -> e.kind() == EventKind.SERVER_HOLDS && e.subject() == null
                && e.value() == run.workerActor(0)), "and later nobody: its lease ran out while it was stopped");
        assertTrue(events.stream().anyMatch(e -> e.kind() == EventKind.TWO_HOLDERS && e.actor() == run.workerActor(1)
                && e.value() == run.workerActor(0)), "the moment both believed they held it is on client-2's lane");

        try (Jedis jedis = TestServers.redis().open("test", 5_000)) {
            assertEquals(Set.of(), jedis.keys("racelab:" + run.id() + ":*"), "no key of the run is left");
        }
        try (Connection c = TestServers.connect();
             PreparedStatement rows = c.prepareStatement("SELECT count(*) FROM racelab.lease_records WHERE run_id = ?")) {
            rows.setString(1, run.id());
            try (ResultSet rs = rows.executeQuery()) {
                rs.next();
                assertEquals(0, rs.getInt(1), "no row of the run is left");
            }
        }
    }

    private static String verdicts(List<Outcome> outcomes) {
        return outcomes.stream().map(o -> o.verdict().name()).distinct().count() == 1
                ? outcomes.get(0).verdict() + " " + outcomes.size() + "/" + outcomes.size()
                : outcomes.stream().map(o -> o.verdict().name()).toList().toString();
    }
}
