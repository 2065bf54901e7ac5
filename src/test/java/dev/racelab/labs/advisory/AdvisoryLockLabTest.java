package dev.racelab.labs.advisory;

import dev.racelab.engine.ActorState;
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
import dev.racelab.engine.view.Panel;
import dev.racelab.support.PgProbe;
import dev.racelab.support.Poll;
import dev.racelab.support.RecordingSketch;
import dev.racelab.support.SentStatements;
import dev.racelab.support.TestServers;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The advisory-lock lab against a real PostgreSQL: the pooled session lock left behind in a
 * connection no worker owns, seen in {@code pg_locks} from a connection of the test's own; both
 * fixes clean; a worker that dies holding a transaction lock takes it with it; re-entrancy; and a
 * real 32-bit hash collision making unrelated workers wait for each other.
 */
@Tag("lab")
class AdvisoryLockLabTest {

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final int RUNS = 10;
    private static final int WORKER_1 = 0;
    private static final int WORKER_2 = 1;
    private static final Pattern ORPHAN = Pattern.compile("advisory lock (-?[0-9]+) orphaned in (pool-[0-9]+)");

    private final AdvisoryLockLab lab = new AdvisoryLockLab(TestServers.backends());

    private Run start(RunSpec spec) {
        Run run = new Run(lab, spec, Clock.system());
        run.start();
        return run;
    }

    /**
     * Eight workers (the lab's default), two pooled connections, the lab's preset delays (a before-unlock delay among
     * them), five requests each and a patience of 200 ms, so that work is left when a lock is.
     */
    private RunSpec underLoad(String strategy, long seed) {
        return lab.defaults().withStrategy(strategy).withOps(5).withSeed(seed)
                .with(AdvisoryLockLab.POOL_SIZE, 2).with(AdvisoryLockLab.PATIENCE_MS, 200);
    }

    /**
     * A request sends what the article's withLock sends, and nothing of RaceLab's: the lock call,
     * the work and the unlock (session locks), or BEGIN, the lock call, the work and COMMIT (the
     * transaction lock). Counted on the wire, for one worker that is never refused.
     */
    @Test
    void eachRequestSendsWhatAPlainProgramSends() throws Exception {
        Map<String, Integer> plain = Map.of("session-pooled", 3, "session-pinned", 3, "xact-lock", 4);
        for (Map.Entry<String, Integer> strategy : plain.entrySet()) {
            long sent;
            try (SentStatements wire = new SentStatements()) {
                Outcome outcome = start(lab.defaults().withStrategy(strategy.getKey()).withWorkers(1).withOps(20)
                        .withGates(GatePlan.NONE).with(AdvisoryLockLab.WORK_MS, 0)).awaitOutcome(WAIT);
                assertEquals(Verdict.SAFE, outcome.verdict(), outcome.banner());
                sent = wire.sentBy(lab.workerName(0));
            }
            assertEquals(strategy.getValue() * 20L, sent, strategy.getKey() + ": statements for 20 requests");
        }
    }

    /**
     * Ten runs of session-pooled: in each, once an unlock has gone astray, every worker is held at
     * its next request; then no worker believes it holds the lock, and the test's own connection
     * finds it in pg_locks, granted to one pool connection that sits idle. Let go, the run ends
     * STUCK naming that very connection and key.
     */
    @Test
    void sessionPooledLeavesItsLockInAPoolConnectionNoWorkerOwnsEveryTime() throws Exception {
        List<String> seen = new ArrayList<>();
        for (int seed = 1; seed <= RUNS; seed++) {
            RunSpec spec = underLoad("session-pooled", seed);
            Run run = start(spec);
            String key = key(run, LockKeys.FIRST);
            Poll.until("an unlock went astray", () -> leftBehind(run) > 0 || run.outcome().isDone());
            assertTrue(leftBehind(run) > 0, "a lock was left behind with requests still to come: "
                    + (run.outcome().isDone() ? run.outcome().get().banner() : ""));
            run.setPlan(spec.gates().with(AdvisoryLockLab.BEFORE_LOCK.id(),
                    spec.gates().ruleForAll(AdvisoryLockLab.BEFORE_LOCK.id()).withBreakpoint(true)));
            for (int w = 0; w < spec.workers(); w++) {
                Gate settled = new Gate(run.gates().awaitSettled(w, WAIT));
                assertTrue(settled.finished() || settled.at(AdvisoryLockLab.BEFORE_LOCK), "worker " + w);
            }
            List<String> locks;
            try (PgProbe probe = new PgProbe()) {
                locks = probe.advisoryLocksOf(PgProbe.pidsOf(run));
            }
            assertEquals(1, locks.size(), "one lock held, nobody waiting: " + locks);
            Matcher line = Pattern.compile("racelab:(pool-[0-9]+) idle " + key + " granted").matcher(locks.get(0));
            assertTrue(line.matches(), "an idle pool connection holds the invoice's lock: " + locks);

            run.setPlan(spec.gates());
            run.gates().resumeAll();
            Outcome outcome = run.awaitOutcome(WAIT);
            assertEquals(Verdict.STUCK, outcome.verdict(), outcome.banner());
            Matcher named = ORPHAN.matcher(outcome.headline());
            assertTrue(named.matches(), outcome.headline());
            assertEquals(key, named.group(1));
            assertEquals(line.group(1), named.group(2), "the verdict names the connection pg_locks showed");
            assertEquals(1L, outcome.violations().get(AdvisoryScenario.ORPHANED));
            assertEquals(1L, outcome.metrics().get("orphanedLocks"));
            long left = outcome.metrics().get("locksLeftBehind").longValue();
            assertTrue(left >= 1, outcome.metrics().toString());
            assertEquals(left, outcome.violations().get(AdvisoryScenario.LEFT_BEHIND));
            assertTrue(outcome.metrics().get("falseUnlocks").longValue() >= 1);
            assertTrue(outcome.explanation().contains("A fresh session asked for it just now and was refused."),
                    outcome.explanation());
            assertEquals(List.of(String.valueOf(left)), panel(run, AdvisoryScenario.LEFT_BEHIND), "the panel agrees");
            List<String> picture = picture(view(run));
            assertTrue(picture.contains(AdvisoryScenario.LEFT_BEHIND + ": " + left), picture.toString());
            assertTrue(picture.contains(line.group(1)) && picture.contains("ORPHANED: no worker owns it"),
                    "the picture shows the connection and its orphan: " + picture);
            seen.add(line.group(1) + " ×" + left);
        }
        System.out.printf("[advisory-lock] session-pooled, %d runs: orphaned in %s%n", RUNS, seen);
    }

    /**
     * Ten runs of each fix with the same pool and delays, three requests a worker (the lab's
     * default), and a patience no wait for a lock that is let go comes near: every request is
     * served, however busy the machine (at 200 ms, a worker refused for its whole patience on a
     * busy machine gave its request up, as a client would).
     */
    @Test
    void bothFixesAreSafeEveryTimeAndLeaveNoAdvisoryLock() throws Exception {
        List<CompletableFuture<List<Outcome>>> going = List.of("session-pinned", "xact-lock").stream()
                .map(strategy -> CompletableFuture.supplyAsync(() -> tenRuns(strategy))).toList();
        for (CompletableFuture<List<Outcome>> fix : going) {
            for (Outcome outcome : fix.join()) {
                assertEquals(Verdict.SAFE, outcome.verdict(), outcome.banner() + " " + outcome.explanation());
                assertEquals(0L, outcome.metrics().get("orphanedLocks"), "pg_locks, read before the run's sessions closed");
                assertEquals(0L, outcome.metrics().get("locksLeftBehind"));
                assertEquals(0L, outcome.metrics().get("overlappingSections"));
                assertEquals(0L, outcome.metrics().get("falseUnlocks"));
                assertEquals(outcome.metrics().get("acquisitions"), outcome.metrics().get("workDone"),
                        "every lock granted, the work done once under it");
                assertEquals((long) lab.defaultWorkers() * lab.defaultOps(),
                        outcome.metrics().get("acquisitions").longValue(),
                        "every request served: " + outcome.metrics());
                assertEquals(0L, outcome.metrics().get("requestsGivenUp"));
            }
        }
    }

    private List<Outcome> tenRuns(String strategy) {
        List<Outcome> outcomes = new ArrayList<>();
        try {
            for (int seed = 1; seed <= RUNS; seed++) {
                Run run = start(underLoad(strategy, seed).withOps(lab.defaultOps())
                        .with(AdvisoryLockLab.PATIENCE_MS, 60_000));
                outcomes.add(run.awaitOutcome(WAIT));
                try (PgProbe probe = new PgProbe()) {
                    assertEquals(List.of(), probe.advisoryLocksOf(PgProbe.pidsOf(run)), "no advisory lock afterwards");
                }
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        return outcomes;
    }

    /**
     * Worker-1 dies right after taking its lock, while the others are held before theirs: with a
     * transaction lock, the pool rolls its connection's transaction back and the lock is gone at
     * once (pg_locks, from the test's connection, holds nothing); with a session lock, the
     * connection goes back to the pool holding it, for good.
     */
    @ParameterizedTest
    @EnumSource(value = AdvisoryStrategy.class, names = {"XACT_LOCK", "SESSION_PINNED"})
    void aWorkerThatDiesHoldingTakesATransactionLockWithItButNotASessionLock(AdvisoryStrategy strategy)
            throws Exception {
        GatePlan plan = GatePlan.NONE.with(AdvisoryLockLab.DIES_HOLDING.id(), WORKER_1, GateRule.fixed(1));
        GatePlan holdOthers = plan.with(AdvisoryLockLab.BEFORE_LOCK.id(), GateRule.BREAKPOINT)
                .with(AdvisoryLockLab.BEFORE_LOCK.id(), WORKER_1, GateRule.PASS);
        Run run = start(lab.defaults().withStrategy(strategy.id()).withWorkers(3).withOps(2)
                .withGates(holdOthers));
        Poll.until("worker-1 died", () -> died(run, WORKER_1));
        if (strategy == AdvisoryStrategy.XACT_LOCK) {
            // Said once the pool has taken the connection back, rolling its transaction back.
            Poll.until("worker-1's transaction lock went with its rollback", () -> released(run, WORKER_1));
        }
        for (int w = 1; w < 3; w++) {
            assertEquals(AdvisoryLockLab.BEFORE_LOCK, run.gates().awaitSettled(w, WAIT));
        }
        List<String> locks;
        try (PgProbe probe = new PgProbe()) {
            locks = probe.advisoryLocksOf(PgProbe.pidsOf(run));
        }
        run.setPlan(plan);
        run.gates().resumeAll();
        Outcome outcome = run.awaitOutcome(WAIT);
        assertEquals(1L, outcome.metrics().get("deaths"));
        if (strategy == AdvisoryStrategy.XACT_LOCK) {
            assertEquals(List.of(), locks, "the rollback released it");
            assertEquals(Verdict.SAFE, outcome.verdict(), outcome.banner());
            assertEquals(0L, outcome.metrics().get("orphanedLocks"));
            assertEquals(5L, outcome.metrics().get("acquisitions"), "the others all got the lock after it");
        } else {
            String key = key(run, LockKeys.FIRST);
            assertEquals(1, locks.size(), locks.toString());
            assertTrue(locks.get(0).matches("racelab:pool-[0-9]+ idle " + key + " granted"), locks.toString());
            assertEquals(Verdict.STUCK, outcome.verdict(), outcome.banner());
            assertTrue(outcome.explanation().contains("worker-1 died holding the lock on " + LockKeys.FIRST),
                    outcome.explanation());
        }
    }

    /**
     * Stopped while it holds its lock (halted before its unlock), a session-pinned worker still
     * unlocks on its way out, on the connection that holds the lock: PostgreSQL answers true, and
     * the lock observer's last read, after the workers ended and before the pool closed, finds that
     * the worker holds nothing. (Its connection went back to the pool holding the lock before.)
     */
    @Test
    void aPinnedWorkerStoppedWhileHoldingItsLockUnlocksOnItsWayOut() throws Exception {
        Run run = start(lab.defaults().withStrategy("session-pinned").withWorkers(1).withOps(1)
                .withObserve(true).withGates(GatePlan.NONE.with(AdvisoryLockLab.BEFORE_UNLOCK.id(), GateRule.BREAKPOINT)));
        assertEquals(AdvisoryLockLab.BEFORE_UNLOCK, run.gates().awaitSettled(WORKER_1, WAIT));
        String key = key(run, LockKeys.FIRST);
        try (PgProbe probe = new PgProbe()) {
            List<String> locks = probe.advisoryLocksOf(PgProbe.pidsOf(run));
            assertEquals(1, locks.size(), locks.toString());
            assertTrue(locks.get(0).matches("racelab:pool-[0-9]+ idle " + key + " granted"), locks.toString());
        }
        Poll.until("the lock observer names worker-1 as the holder", () -> lastHeld(run, WORKER_1) != null);

        run.stop();
        Outcome outcome = run.awaitOutcome(WAIT);
        assertTrue(outcome.explanation().startsWith("Stopped by the user"), outcome.explanation());
        assertEquals(List.of(true), unlockAnswers(run), "its one unlock, sent as it stopped, found the lock");
        assertEquals(1L, outcome.metrics().get("trueUnlocks"));
        assertEquals(0L, outcome.metrics().get("orphanedLocks"));
        assertNull(lastHeld(run, WORKER_1), "the last read of pg_locks, after the workers ended: worker-1 holds "
                + "nothing");
        assertEquals(List.of(), poolHolds(run), "the lab's panel: no connection holds a lock");
    }

    /**
     * Transaction-level, its session ended by the server while it holds the lock (halted before its
     * commit, then terminated, as an administrator or a crash would): its commit fails, the
     * transaction and its lock are gone with the session, and the lab says so: no connection in
     * the panel holds a lock, nothing is marked left behind, and the run names the failure.
     */
    @Test
    void aTransactionLockWhoseSessionTheServerEndsIsNotShownHeldAfterwards() throws Exception {
        Run run = start(lab.defaults().withStrategy("xact-lock").withWorkers(1).withOps(1)
                .withObserve(true).withGates(GatePlan.NONE.with(AdvisoryLockLab.BEFORE_UNLOCK.id(), GateRule.BREAKPOINT)));
        assertEquals(AdvisoryLockLab.BEFORE_UNLOCK, run.gates().awaitSettled(WORKER_1, WAIT));
        Set<Integer> pids = PgProbe.pidsOf(run);
        try (PgProbe probe = new PgProbe()) {
            assertEquals(1, probe.advisoryLocksOf(pids).size(), "worker-1 holds its lock in PostgreSQL");
            assertEquals(1, poolHolds(run).size(), "and the panel shows it held: " + poolHolds(run));
            probe.terminate(pids);
            assertTrue(Poll.eventually(WAIT, () -> probe.sessionsAlive(pids).isEmpty()),
                    "worker-1's sessions never went: " + probe.sessionsAlive(pids));
        }
        run.gates().resumeAll();
        Outcome outcome = run.awaitOutcome(WAIT);
        assertEquals(Verdict.ERROR, outcome.verdict(), outcome.banner());
        assertEquals(List.of(), poolHolds(run), "the lab's panel: no connection holds a lock");
        assertEquals(0, leftBehind(run), "a transaction-level lock is never left behind");
    }

    /**
     * Session-pinned, three locks and four unlocks, one pooled connection: worker-1 dies holding
     * its lock three times over, and its connection goes back to the pool keeping the three (three
     * ✕). Worker-2, let go only then, borrows that connection for each of its three requests: its
     * three locks are granted at once (the session holds the key), and each fourth unlock, owed
     * nobody, frees one of the dead worker's. pg_locks holds nothing at the end, but the locks were
     * left behind all the same: the verdict is STUCK and counts the three ✕ marks, as the panel
     * does, and says no orphan is left.
     */
    @Test
    void locksLeftBehindAndFreedByAnUnlockNobodyOwedAreNeverSafe() throws Exception {
        GatePlan plan = GatePlan.NONE.with(AdvisoryLockLab.DIES_HOLDING.id(), WORKER_1, GateRule.fixed(1))
                .with(AdvisoryLockLab.BEFORE_LOCK.id(), WORKER_2, GateRule.BREAKPOINT);
        Run run = start(lab.defaults().withStrategy("session-pinned").withWorkers(2).withOps(3)
                .with(AdvisoryLockLab.POOL_SIZE, 1)
                .with(AdvisoryLockLab.REENTRANCY, AdvisoryLockLab.Reentrancy.ONE_TOO_MANY).withGates(plan));
        assertEquals(AdvisoryLockLab.BEFORE_LOCK, run.gates().awaitSettled(WORKER_2, WAIT));
        Poll.until("worker-1 died", () -> died(run, WORKER_1));
        GatePlan dieOnly = GatePlan.NONE.with(AdvisoryLockLab.DIES_HOLDING.id(), WORKER_1, GateRule.fixed(1));
        run.setPlan(dieOnly);
        run.gates().resumeAll();
        Outcome outcome = run.awaitOutcome(WAIT);

        assertEquals(java.util.Collections.nCopies(12, true), unlockAnswers(run),
                "each of worker-2's fourth unlocks freed one of worker-1's locks");
        assertEquals(3L, leftBehind(run), "a ✕ for each lock worker-1 kept");
        assertEquals(Verdict.STUCK, outcome.verdict(), outcome.banner());
        assertEquals("3 locks left behind, freed only by an unlock nobody owed", outcome.headline());
        assertEquals(3L, outcome.violations().get(AdvisoryScenario.LEFT_BEHIND), "the verdict counts the marks");
        assertEquals(3L, outcome.metrics().get("locksLeftBehind"));
        assertEquals(0L, outcome.metrics().get("orphanedLocks"), "pg_locks at the end: no orphan left");
        assertNull(outcome.violations().get(AdvisoryScenario.ORPHANED));
        assertTrue(outcome.explanation().contains("worker-1 died holding the lock on " + LockKeys.FIRST)
                && outcome.explanation().contains("an unlock worker-2 owed nobody released a lock"), outcome.explanation());
        assertEquals(List.of("3"), panel(run, AdvisoryScenario.LEFT_BEHIND), "the panel agrees");
        assertEquals(List.of(), poolHolds(run), "and shows no connection holding a lock at the end");
    }

    /**
     * With blocking locks, a session lock left behind by a dead worker makes the others wait for
     * ever in PostgreSQL, unless their connection is the very one that holds it: the test's
     * connection sees a worker waiting (granted = false) for the idle pool connection that holds
     * the lock while the run is still going, and a second after it went quiet the run ends STUCK
     * naming that connection. The run's timeout is ten minutes, far beyond the test's wait: a
     * verdict within the wait is the lab's own, given while the two workers still waited in
     * PostgreSQL (the run then stopped them), never the timeout's.
     */
    @Test
    void blockingWorkersWaitForEverForTheLockADeadWorkerLeftAndTheRunSaysSoAtOnce() throws Exception {
        // The wait lasts a second of quiet before the lab names it; a test thread starved that long on
        // a busy machine misses it. Each miss must still end STUCK, and one of three tries must see it.
        Run run = null;
        String key = null;
        List<String> seen = null;
        for (int attempt = 1; attempt <= 3 && seen == null; attempt++) {
            run = start(lab.defaults().withStrategy("session-pinned").withWorkers(3).withOps(2)
                    .withTimeout(Duration.ofMinutes(10))
                    .with(AdvisoryLockLab.ACQUIRE, AdvisoryLockLab.Acquire.BLOCKING)
                    .withGates(GatePlan.NONE.with(AdvisoryLockLab.DIES_HOLDING.id(), WORKER_1, GateRule.fixed(1))
                            .with(AdvisoryLockLab.BEFORE_LOCK.id(), WORKER_1, GateRule.PASS)
                            .with(AdvisoryLockLab.BEFORE_LOCK.id(), GateRule.fixed(100))));
            key = key(run, LockKeys.FIRST);
            seen = waitSeenBeforeTheVerdict(run, key);
            if (seen == null) {
                Outcome missed = run.awaitOutcome(WAIT);
                assertEquals(Verdict.STUCK, missed.verdict(), "try " + attempt + ": " + missed.banner());
            }
        }
        assertTrue(seen != null, "the test saw the wait before the verdict in one of three tries");
        String waitedFor = " active " + key + " waiting";
        Outcome outcome = run.awaitOutcome(WAIT);
        assertEquals(Verdict.STUCK, outcome.verdict(), outcome.banner());
        Matcher named = ORPHAN.matcher(outcome.headline());
        assertTrue(named.matches(), outcome.headline());
        assertTrue(seen.contains("racelab:" + named.group(2) + " idle " + key + " granted"),
                "the orphan, idle in the pool: " + seen);
        assertTrue(seen.stream().anyMatch(l -> l.endsWith(waitedFor)), seen.toString());
        assertTrue(outcome.explanation().contains(" in pg_locks (granted = false) for a lock only the orphan holds."),
                outcome.explanation());
        // The record: the run stopped its workers after the verdict, and a worker still waiting then
        // was stopped waiting (one whose connection held the orphan may have got the lock and finished).
        List<Event> events = run.recorder().snapshot();
        Event stopping = events.stream().filter(e -> e.kind() == EventKind.RUN_STOPPING).findFirst().orElseThrow(
                () -> new AssertionError("the run stopped its workers after the verdict: " + outcome.banner()));
        int stoppedWaiting = 0;
        for (int w = 1; w < 3; w++) {
            int actor = run.workerActor(w);
            ActorState last = events.stream().filter(e -> e.kind() == EventKind.STATE && e.actor() == actor
                    && e.seq() < stopping.seq()).reduce((a, b) -> b).orElseThrow().state();
            assertTrue(last == ActorState.WAITING || opsDone(run, w) == 2, "worker-" + (w + 1) + " waited or was done: "
                    + last);
            stoppedWaiting += last == ActorState.WAITING ? 1 : 0;
        }
        assertTrue(stoppedWaiting >= 1, "a worker still waited in PostgreSQL when the lab named the wait");
    }

    /** What pg_locks showed once a worker waited for the idle orphan, or null if the run ended first. */
    private static List<String> waitSeenBeforeTheVerdict(Run run, String key) throws Exception {
        try (PgProbe probe = new PgProbe()) {
            List<List<String>> reads = new ArrayList<>();
            assertTrue(Poll.eventually(WAIT, () -> {
                List<String> locks = probe.advisoryLocksOf(PgProbe.pidsOf(run));
                reads.add(locks);
                return locks.stream().anyMatch(l -> l.endsWith(" " + key + " waiting"))
                        && locks.stream().anyMatch(l -> l.endsWith(" idle " + key + " granted"))
                        || run.outcome().isDone();
            }));
            return run.outcome().isDone() ? null : reads.get(reads.size() - 1);
        }
    }

    /**
     * A session lock taken three times needs three unlocks: halted before each unlock, the test's
     * connection still finds it held before the first three and gone before the fourth, which
     * PostgreSQL answers false. The lab's panel lists the answers.
     */
    @Test
    void aLockTakenThreeTimesNeedsThreeUnlocksAndAFourthReturnsFalse() throws Exception {
        Run run = start(lab.defaults().withStrategy("session-pinned").withWorkers(1).withOps(1)
                .with(AdvisoryLockLab.REENTRANCY, AdvisoryLockLab.Reentrancy.ONE_TOO_MANY)
                .withGates(GatePlan.NONE.with(AdvisoryLockLab.BEFORE_UNLOCK.id(), GateRule.BREAKPOINT)));
        String key = key(run, LockKeys.FIRST);
        List<List<String>> before = new ArrayList<>();
        try (PgProbe probe = new PgProbe()) {
            for (int unlock = 1; unlock <= 4; unlock++) {
                assertEquals(AdvisoryLockLab.BEFORE_UNLOCK, run.gates().awaitSettled(WORKER_1, WAIT));
                before.add(probe.advisoryLocksOf(PgProbe.pidsOf(run)).stream()
                        .map(l -> l.replaceFirst("^racelab:pool-[0-9]+ ", "")).toList());
                if (unlock == 1) {
                    assertEquals(List.of("3×"), table(run, 1), "the panel: worker-1 believes it holds it 3 times");
                }
                run.step(WORKER_1);
            }
        }
        Outcome outcome = run.awaitOutcome(WAIT);
        String held = "idle " + key + " granted";
        assertEquals(List.of(List.of(held), List.of(held), List.of(held), List.of()), before,
                "held before each of the three unlocks, gone before the fourth");
        assertEquals(List.of(true, true, true, false), unlockAnswers(run));
        assertEquals(List.of("true ×3, false"), table(run, 3), "the panel shows the four answers");
        assertEquals(Verdict.SAFE, outcome.verdict(), outcome.banner());
        assertEquals(3L, outcome.metrics().get("acquisitions"));
        assertEquals(3L, outcome.metrics().get("trueUnlocks"));
        assertEquals(1L, outcome.metrics().get("falseUnlocks"));
        assertEquals(0L, outcome.metrics().get("locksLeftBehind"));
    }

    /**
     * The pair collides under the article's hash, bare and in any run (a run qualifies its names
     * with its id), and the run's keys differ from another run's; the fixes keep the pair apart.
     */
    @Test
    void theCollidingInvoicesAreARealPairUnderTheArticlesHashAndApartUnderTheFixes() {
        assertNotEquals(LockKeys.FIRST, LockKeys.SECOND);
        assertEquals(LockKeys.FIRST.hashCode(), LockKeys.articleHash(LockKeys.FIRST), "the article's hash is Java's");
        assertEquals(LockKeys.articleHash(LockKeys.FIRST), LockKeys.articleHash(LockKeys.SECOND));
        for (String run : List.of("3f9a0c1e", "a", "run-with-a-long-id-0123456789")) {
            assertEquals(LockKeys.HASH32.of(run, LockKeys.FIRST), LockKeys.HASH32.of(run, LockKeys.SECOND));
            assertNotEquals(LockKeys.HASH64.of(run, LockKeys.FIRST), LockKeys.HASH64.of(run, LockKeys.SECOND));
            assertNotEquals(LockKeys.TWO_KEYS.of(run, LockKeys.FIRST), LockKeys.TWO_KEYS.of(run, LockKeys.SECOND));
            for (LockKeys keys : LockKeys.values()) {
                assertNotEquals(keys.of("another", LockKeys.FIRST), keys.of(run, LockKeys.FIRST), "runs never meet");
                assertEquals(keys.of(run, LockKeys.FIRST), keys.decode(LockKeys.encode(keys.of(run, LockKeys.FIRST))));
            }
        }
    }

    /**
     * Worker-1 takes the lock on one invoice and is held there; worker-2 then asks for the lock on
     * the other invoice. Under the article's 32-bit hash both names are one key: worker-2 waits in
     * PostgreSQL for worker-1's session until worker-1 goes on. Under a 64-bit hash or two keys,
     * worker-2 gets its own lock and finishes while worker-1 still holds its.
     */
    @ParameterizedTest
    @EnumSource(LockKeys.class)
    void unrelatedInvoicesContendOnlyWhenTheirKeysCollide(LockKeys keys) throws Exception {
        Run run = start(lab.defaults().withStrategy("xact-lock").withWorkers(2).withOps(1)
                .with(AdvisoryLockLab.ACQUIRE, AdvisoryLockLab.Acquire.BLOCKING)
                .with(AdvisoryLockLab.RESOURCES, LockKeys.Resources.COLLIDING).with(AdvisoryLockLab.KEYS, keys)
                .withGates(GatePlan.NONE.with(AdvisoryLockLab.AFTER_LOCK.id(), WORKER_1, GateRule.BREAKPOINT)
                        .with(AdvisoryLockLab.BEFORE_LOCK.id(), WORKER_2, GateRule.BREAKPOINT)));
        assertEquals(AdvisoryLockLab.AFTER_LOCK, run.gates().awaitSettled(WORKER_1, WAIT));
        assertEquals(AdvisoryLockLab.BEFORE_LOCK, run.gates().awaitSettled(WORKER_2, WAIT));
        run.step(WORKER_2);
        boolean contended = keys == LockKeys.HASH32;
        try (PgProbe probe = new PgProbe()) {
            if (contended) {
                assertTrue(Poll.eventually(WAIT, () -> probe.advisoryLocksOf(PgProbe.pidsOf(run)).stream()
                        .anyMatch(l -> l.endsWith(" waiting"))), "worker-2 waits in PostgreSQL");
                List<String> locks = probe.advisoryLocksOf(PgProbe.pidsOf(run));
                String key = key(run, LockKeys.FIRST);
                assertEquals(2, locks.size(), locks.toString());
                assertTrue(locks.stream().allMatch(l -> l.contains(" " + key + " ")), "one key for both: " + locks);
                assertEquals(0, opsDone(run, WORKER_2), "worker-2 has not got far");
            } else {
                Poll.until("worker-2 finished its work", () -> opsDone(run, WORKER_2) == 1);
                assertEquals(AdvisoryLockLab.AFTER_LOCK, run.gates().haltedAt(WORKER_1), "while worker-1 held its lock");
                assertEquals(1, probe.advisoryLocksOf(PgProbe.pidsOf(run)).size(), "worker-1's, granted, alone");
            }
        }
        run.setPlan(GatePlan.NONE);
        run.gates().resumeAll();
        Outcome outcome = run.awaitOutcome(WAIT);
        assertEquals(Verdict.SAFE, outcome.verdict(), outcome.banner());
        assertEquals(contended ? 1L : 0L, outcome.metrics().get("collisions"));
        if (contended) {
            assertEquals(LockKeys.HASH32.of(run.id(), LockKeys.FIRST).key(), outcome.metrics().get("collidingKey"));
            assertTrue(outcome.headline().endsWith("1 time another invoice's lock stood in the way"),
                    outcome.headline());
            assertTrue(outcome.explanation().startsWith("worker-2 waits on " + LockKeys.SECOND + " because worker-1 "
                    + "holds the lock on " + LockKeys.FIRST + ": both names hash to "), outcome.explanation());
        } else {
            assertNull(outcome.metrics().get("collidingKey"));
        }
    }

    /** The key of {@code resource}'s lock in {@code run}, under the article's hash, as pg_locks shows it. */
    private static String key(Run run, String resource) {
        return LockKeys.HASH32.of(run.id(), resource).toString();
    }

    /** The lab's view of a run, fed its record as the window feeds it. */
    private LabView view(Run run) {
        LabView view = lab.view(run.record().header());
        run.recorder().snapshot().forEach(view::accept);
        return view;
    }

    /** The values of the panel rows called {@code label}. */
    private List<String> panel(Run run, String label) {
        return view(run).panels().stream().filter(Panel.Values.class::isInstance)
                .flatMap(p -> ((Panel.Values) p).rows().stream()).filter(row -> row.label().equals(label))
                .map(Panel.Value::value).toList();
    }

    /** Column {@code column} of the workers' table. */
    private List<String> table(Run run, int column) {
        return view(run).panels().stream().filter(Panel.Table.class::isInstance).map(Panel.Table.class::cast)
                .filter(t -> t.title().equals("Each worker")).flatMap(t -> t.rows().stream())
                .map(row -> row.get(column)).toList();
    }

    /** The texts of the lab's picture of a run. */
    static List<String> picture(LabView view) {
        RecordingSketch sketch = new RecordingSketch(600, 500);
        view.draw(sketch);
        return sketch.texts();
    }

    /** What the lock observer last said worker {@code worker} holds (null: nothing, or never said). */
    private static String lastHeld(Run run, int worker) {
        int actor = run.workerActor(worker);
        String held = null;
        for (Event e : run.recorder().snapshot()) {
            if (e.kind() == EventKind.SERVER_HOLDS && e.value() == actor) {
                held = e.subject();
            }
        }
        return held;
    }

    /** The items of the lab's "The pool holds" panel: the connections holding a lock. */
    private List<String> poolHolds(Run run) {
        return view(run).panels().stream().filter(Panel.Items.class::isInstance).map(Panel.Items.class::cast)
                .filter(p -> p.title().equals(AdvisoryView.POOL_HOLDS)).flatMap(p -> p.items().stream())
                .map(Panel.Item::text).toList();
    }

    private static long leftBehind(Run run) {
        return run.recorder().snapshot().stream().filter(e -> e.kind() == EventKind.VIOLATION
                && AdvisoryScenario.LEFT_BEHIND.equals(e.subject())).count();
    }

    private static boolean died(Run run, int worker) {
        int actor = run.workerActor(worker);
        return run.recorder().snapshot().stream().anyMatch(e -> e.kind() == EventKind.STATE && e.actor() == actor
                && e.state() == dev.racelab.engine.ActorState.FAILED);
    }

    private static boolean released(Run run, int worker) {
        int actor = run.workerActor(worker);
        return run.recorder().snapshot().stream().anyMatch(e -> e.kind() == EventKind.LOCK_RELEASED
                && e.actor() == actor);
    }

    private static long opsDone(Run run, int worker) {
        int actor = run.workerActor(worker);
        return run.recorder().snapshot().stream().filter(e -> e.kind() == EventKind.OP_END && e.actor() == actor)
                .count();
    }

    private static List<Boolean> unlockAnswers(Run run) {
        List<Boolean> answers = new ArrayList<>();
        for (Event e : run.recorder().snapshot()) {
            if (e.kind() == EventKind.LOCK_RELEASED) {
                answers.add(true);
            } else if (e.kind() == EventKind.UNLOCK_FALSE) {
                answers.add(false);
            }
        }
        return answers;
    }

    /** Where a worker settled: halted at a gate, or finished (null). */
    private record Gate(dev.racelab.engine.Gate gate) {
        boolean finished() {
            return gate == null;
        }

        boolean at(dev.racelab.engine.Gate expected) {
            return expected.equals(gate);
        }
    }
}
