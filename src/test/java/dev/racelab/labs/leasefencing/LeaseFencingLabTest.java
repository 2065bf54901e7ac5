package dev.racelab.labs.leasefencing;

import dev.racelab.engine.Actor;
import dev.racelab.engine.ActorState;
import dev.racelab.engine.Clock;
import dev.racelab.engine.Event;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.Gate;
import dev.racelab.engine.GatePlan;
import dev.racelab.engine.GateRule;
import dev.racelab.engine.Outcome;
import dev.racelab.engine.Run;
import dev.racelab.engine.RunSpec;
import dev.racelab.engine.Verdict;
import dev.racelab.support.Poll;
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
 * repeat: two clients, one write each. No margins of time decide the order: client-1 takes the lock
 * and is held at a breakpoint at the gate under test, client-2 at one before it asks for the lock.
 * The test lets client-2 go only once Redis itself has let client-1's lease go (the lock's key is
 * gone), waits until client-2 has taken the lock and written, and only then lets client-1 go on.
 * Every wait is bounded, and one that runs out fails the test saying what never happened.
 */
@Tag("lab")
class LeaseFencingLabTest {

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final int RUNS = 10;
    private static final int CLIENT_1 = 0;
    private static final int CLIENT_2 = 1;

    private final LeaseFencingLab lab = new LeaseFencingLab(TestServers.backends());

    /**
     * Two clients, one write each, a lease of {@code lease} ms: client-1 halts at {@code gate},
     * client-2 before it asks for the lock, until the test lets each go.
     */
    private RunSpec spec(String strategy, Gate gate, int lease) {
        return lab.defaults().withStrategy(strategy).withWorkers(2).withOps(1)
                .with(LeaseFencingLab.LEASE_MS, lease)
                .withGates(GatePlan.NONE.with(gate.id(), CLIENT_1, GateRule.BREAKPOINT)
                        .with(LeaseFencingLab.BEFORE_ACQUIRE.id(), CLIENT_2, GateRule.BREAKPOINT));
    }

    /**
     * Runs {@code spec}: client-1 held at {@code gate} holding the lock until its lease ran out in
     * Redis; then client-2 takes the lock and writes; then client-1 goes on. The run, ended.
     */
    private static Run pastTheLease(RunSpec spec, Gate gate) throws Exception {
        Run run = new Run(new LeaseFencingLab(TestServers.backends()), spec, Clock.system());
        run.start();
        assertEquals(gate, run.gates().awaitSettled(CLIENT_1, WAIT), "client-1 halted holding the lock");
        assertEquals(LeaseFencingLab.BEFORE_ACQUIRE, run.gates().awaitSettled(CLIENT_2, WAIT));
        awaitLeaseGone(run);
        letClient2Write(run);
        assertTrue(run.step(CLIENT_1), "client-1 was halted at " + gate.id());
        run.awaitOutcome(WAIT);
        return run;
    }

    /** Waits until Redis has no holder of the run's lock: the lease ran out (nobody else was let ask). */
    private static void awaitLeaseGone(Run run) throws Exception {
        String key = lockKey(run);
        try (Jedis jedis = TestServers.redis().open("test", 5_000)) {
            // Not asked whether the key is there first: on a busy machine a short lease may have
            // run out already by the time both clients settled, which is what is waited for.
            assertTrue(Poll.eventually(WAIT, () -> !jedis.exists(key)), "client-1's lease never ran out in Redis: "
                    + key + " still there after " + WAIT.toSeconds() + " s");
        }
    }

    /** Lets client-2 go from before its request, and waits until it has taken the lock, written and finished. */
    private static void letClient2Write(Run run) throws Exception {
        assertTrue(run.step(CLIENT_2), "client-2 was halted before its request");
        run.gates().awaitSettled(CLIENT_2, WAIT);
        assertEquals(1, opsDone(run, CLIENT_2), "client-2 took the lock and wrote, while client-1 was halted");
    }

    /** {@code runs} runs of {@code spec} as {@link #pastTheLease} runs them, one after another; their outcomes. */
    private static List<Outcome> outcomes(RunSpec spec, Gate gate, int runs) throws Exception {
        List<Outcome> outcomes = new ArrayList<>();
        for (int i = 0; i < runs; i++) {
            outcomes.add(pastTheLease(spec, gate).record().outcome());
        }
        return outcomes;
    }

    /**
     * The four cases of the issue side by side: each run mostly waits out its lease. A 200 ms
     * lease; 2 s for lease-check-owner, whose client-1 must hear from Redis that the lock is still
     * its own before it halts after the check (a check that came too late says so: skippedWrites).
     */
    @Test
    void aPausePastTheLeaseRacesWithoutFencingAndEveryStaleWriteIsRejectedWithIt() {
        record Case(RunSpec spec, Gate gate) {
        }
        List<CompletableFuture<List<Outcome>>> cases = List.of(
                new Case(spec("lease-only", LeaseFencingLab.PAUSE_AFTER_ACQUIRE, 200), LeaseFencingLab.PAUSE_AFTER_ACQUIRE),
                new Case(spec("lease-check-owner", LeaseFencingLab.PAUSE_BEFORE_WRITE, 2_000),
                        LeaseFencingLab.PAUSE_BEFORE_WRITE),
                new Case(spec("fenced", LeaseFencingLab.PAUSE_AFTER_ACQUIRE, 200), LeaseFencingLab.PAUSE_AFTER_ACQUIRE),
                new Case(spec("fenced", LeaseFencingLab.PAUSE_BEFORE_WRITE, 200), LeaseFencingLab.PAUSE_BEFORE_WRITE))
                .stream().map(c -> CompletableFuture.supplyAsync(() -> {
                    try {
                        return outcomes(c.spec(), c.gate(), RUNS);
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
     * A 1500 ms lease, renewed every 500 ms. Slow, client-1 is held at slow-write until Redis's
     * own clock has passed the end of its first lease by a whole lease, its key still there; then
     * client-2 asks, and is seen waiting, before client-1 goes on. Without a keeper, or paused,
     * client-1 is held until its key is gone, and client-2 takes the lock and writes meanwhile.
     */
    @Test
    void aLeaseKeeperSavesASlowClientButNotAPausedOne() throws Exception {
        int lease = 1_500;
        RunSpec slow = spec("lease-only", LeaseFencingLab.SLOW_WRITE, lease);
        Run run = new Run(lab, slow.with(LeaseFencingLab.KEEPER, true), Clock.system());
        run.start();
        assertEquals(LeaseFencingLab.SLOW_WRITE, run.gates().awaitSettled(CLIENT_1, WAIT));
        assertEquals(LeaseFencingLab.BEFORE_ACQUIRE, run.gates().awaitSettled(CLIENT_2, WAIT));
        String key = lockKey(run);
        try (Jedis jedis = TestServers.redis().open("test", 5_000)) {
            assertTrue(jedis.exists(key), "client-1's lease is in Redis: " + key);
            long firstLeaseEnds = redisMillis(jedis) + jedis.pttl(key);
            assertTrue(Poll.eventually(WAIT, () -> {
                assertTrue(jedis.exists(key), "the keeper let client-1's lease run out while it was slow");
                return redisMillis(jedis) > firstLeaseEnds + lease;
            }), "Redis's clock never passed the end of client-1's first lease by a lease");
        }
        assertTrue(run.step(CLIENT_2));
        Poll.until("client-2 waits for the lock client-1's keeper keeps",
                () -> lastState(run, CLIENT_2) == ActorState.WAITING);
        assertTrue(run.step(CLIENT_1));
        Outcome slowWithKeeper = run.awaitOutcome(WAIT);
        assertEquals(Verdict.SAFE, slowWithKeeper.verdict(), slowWithKeeper.banner() + " " + slowWithKeeper.metrics());
        assertEquals(0L, slowWithKeeper.metrics().get("twoHolders"), "client-2 waited for the renewed lease");
        assertEquals(List.of(201L, 2L), List.of(slowWithKeeper.metrics().get("finalValue"),
                slowWithKeeper.metrics().get("finalToken")), "client-1 wrote, then client-2 after it");

        Outcome slowAlone = pastTheLease(slow, LeaseFencingLab.SLOW_WRITE).record().outcome();
        assertEquals(Verdict.RACE, slowAlone.verdict(), "without a keeper the slow client's lease runs out");

        Outcome pausedWithKeeper = pastTheLease(spec("lease-only", LeaseFencingLab.PAUSE_AFTER_ACQUIRE, lease)
                .with(LeaseFencingLab.KEEPER, true), LeaseFencingLab.PAUSE_AFTER_ACQUIRE).record().outcome();
        assertEquals(Verdict.RACE, pausedWithKeeper.verdict(), "a paused process renews nothing");
        assertTrue(pausedWithKeeper.explanation().contains("a paused process renews nothing"),
                pausedWithKeeper.explanation());
    }

    /**
     * Checking the owner helps when the pause comes before the check: the client sees it lost the
     * lock. A 2 s lease, so the lock observer reads Redis while client-1 holds it even on a busy
     * machine. Observed: the server lane names client-1 as the holder while it is halted, and nobody
     * once its lease ran out, before client-2 is let go.
     */
    @Test
    void checkingTheOwnerAfterThePauseSkipsTheStaleWriteAndTheRunLeavesNothingBehind() throws Exception {
        Run run = new Run(lab, spec("lease-check-owner", LeaseFencingLab.PAUSE_AFTER_ACQUIRE, 2_000).withObserve(true),
                Clock.system());
        run.start();
        assertEquals(LeaseFencingLab.PAUSE_AFTER_ACQUIRE, run.gates().awaitSettled(CLIENT_1, WAIT));
        assertEquals(LeaseFencingLab.BEFORE_ACQUIRE, run.gates().awaitSettled(CLIENT_2, WAIT));
        Poll.until("Redis's lane names client-1", () -> redisNames(run, CLIENT_1, true));
        awaitLeaseGone(run);
        Poll.until("Redis's lane names nobody once client-1's lease ran out", () -> redisNames(run, CLIENT_1, false));
        letClient2Write(run);
        assertTrue(run.step(CLIENT_1));
        Outcome outcome = run.awaitOutcome(WAIT);
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

    /**
     * A client stopped while it holds the lock (halted before its write) lets it go on its way
     * out: the release is on its lane, and the Redis lane's last read, after the workers ended and
     * before the run's keys were removed, finds nobody holding it. A 60 s lease: only the release
     * can have ended it.
     */
    @Test
    void aClientStoppedWhileHoldingTheLockReleasesItOnItsWayOut() throws Exception {
        Run run = new Run(lab, lab.defaults().withStrategy("fenced").withWorkers(1).withOps(1)
                .with(LeaseFencingLab.LEASE_MS, 60_000).withObserve(true)
                .withGates(GatePlan.NONE.with(LeaseFencingLab.SLOW_WRITE.id(), CLIENT_1, GateRule.BREAKPOINT)),
                Clock.system());
        run.start();
        assertEquals(LeaseFencingLab.SLOW_WRITE, run.gates().awaitSettled(CLIENT_1, WAIT));
        Poll.until("Redis's lane names client-1", () -> redisNames(run, CLIENT_1, true));
        long stoppedAt = run.recorder().snapshot().size();

        run.stop();
        Outcome outcome = run.awaitOutcome(WAIT);
        assertTrue(outcome.explanation().startsWith("Stopped by the user"), outcome.explanation());
        int actor = run.workerActor(CLIENT_1);
        assertTrue(run.recorder().snapshot().stream().skip(stoppedAt).anyMatch(e -> e.kind() == EventKind.LOCK_RELEASED
                && e.actor() == actor), "client-1 released the lock after the stop");
        assertEquals(0L, outcome.metrics().get("refusedReleases"), "its lease was still its own to release");
        assertTrue(redisNames(run, CLIENT_1, false), "Redis's last read: nobody holds the lock");
    }

    /** The run's lock key in Redis. */
    private static String lockKey(Run run) {
        return "racelab:" + run.id() + ":" + LeaseFencingScenario.LOCK;
    }

    /** Redis's clock, in ms. */
    private static long redisMillis(Jedis jedis) {
        List<String> time = jedis.time();
        return Long.parseLong(time.get(0)) * 1_000 + Long.parseLong(time.get(1)) / 1_000;
    }

    /** Whether the Redis lane's latest word on client {@code index} is that it holds a lease ({@code holds}) or nothing. */
    private static boolean redisNames(Run run, int index, boolean holds) {
        int actor = run.workerActor(index);
        Event last = null;
        for (Event e : run.recorder().snapshot()) {
            if (e.kind() == EventKind.SERVER_HOLDS && e.value() == actor) {
                last = e;
            }
        }
        return last != null && (holds ? last.subject() != null && last.subject().startsWith("lease #")
                : last.subject() == null);
    }

    private static long opsDone(Run run, int index) {
        int actor = run.workerActor(index);
        return run.recorder().snapshot().stream().filter(e -> e.kind() == EventKind.OP_END && e.actor() == actor).count();
    }

    private static ActorState lastState(Run run, int index) {
        int actor = run.workerActor(index);
        return run.recorder().snapshot().stream().filter(e -> e.kind() == EventKind.STATE && e.actor() == actor)
                .reduce((a, b) -> b).map(Event::state).orElse(null);
    }

    private static String verdicts(List<Outcome> outcomes) {
        return outcomes.stream().map(o -> o.verdict().name()).distinct().count() == 1
                ? outcomes.get(0).verdict() + " " + outcomes.size() + "/" + outcomes.size()
                : outcomes.stream().map(o -> o.verdict().name()).toList().toString();
    }
}
