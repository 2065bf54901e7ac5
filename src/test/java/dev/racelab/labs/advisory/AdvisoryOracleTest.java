package dev.racelab.labs.advisory;

import dev.racelab.backend.AdvisoryKey;
import dev.racelab.backend.PgLockObserver;
import dev.racelab.engine.Outcome;
import dev.racelab.engine.Verdict;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The oracle and the verdict with no server: a run's lock events told to them as the workers tell
 * them (a grant on a backend, an unlock and its answer), and {@code pg_locks} as the observer
 * would read it at the end. Two workers that take one invoice's lock on one pooled connection are
 * both inside (RACE); the same two one after the other are SAFE; an unlock on another connection
 * leaves the lock behind, and the verdict names the connection that keeps it (STUCK).
 */
@Tag("engine")
class AdvisoryOracleTest {

    private static final String INVOICE = LockKeys.FIRST;
    private static final AdvisoryKey KEY = AdvisoryKey.of(1_912_003_361L);
    private static final String W1 = AdvisoryLockLab.WORKER + "-1";
    private static final String W2 = AdvisoryLockLab.WORKER + "-2";
    private static final PgLockObserver.AdvisoryLocks NONE = new PgLockObserver.AdvisoryLocks(List.of(), List.of());

    private final LockLedger ledger = new LockLedger();
    private final AdvisoryOracle oracle = new AdvisoryOracle(ledger, Map.of(INVOICE, KEY));
    /** The keys a fresh session of RaceLab's own was asked to try, as the verdict asked for them. */
    private final List<AdvisoryKey> triedFresh = new ArrayList<>();
    private final AdvisoryVerdict verdict = new AdvisoryVerdict(ledger, Map.of(INVOICE, KEY), LockKeys.Resources.ONE,
            2, 2, new AdvisoryVerdict.Admin() {
                @Override
                public boolean refusedNow(AdvisoryKey key) {
                    triedFresh.add(key);
                    return true;
                }

                @Override
                public long workDone() {
                    return 2;
                }
            });

    @Test
    void twoWorkersGrantedTheLockOnOneConnectionAreBothInside() throws Exception {
        assertNull(granted(W1, 101), "the first one in overlaps nobody");
        String overlap = granted(W2, 101);

        assertEquals(W2 + "'s lock ran on pool-101, the connection that holds " + W1 + "'s lock, and a session may "
                + "take its own lock again: both worked on " + INVOICE + " at once.", overlap);
        Outcome outcome = verdict.judge(NONE);
        assertEquals(Verdict.RACE, outcome.verdict(), outcome.banner());
        assertEquals("1 overlapping critical section", outcome.headline());
        assertEquals(Map.of(AdvisoryScenario.OVERLAPS, 1L), outcome.violations());
        assertTrue(outcome.explanation().startsWith(overlap), outcome.explanation());
        assertEquals(1L, outcome.metrics().get("overlappingSections"));
    }

    @Test
    void twoWorkersOneAfterTheOtherAreSafe() throws Exception {
        assertNull(granted(W1, 101));
        assertNull(unlocked(W1, 101, 101, true), "it owed that unlock");
        assertNull(granted(W2, 101), "the first one left before the second came in");
        assertNull(unlocked(W2, 101, 101, true));

        Outcome outcome = verdict.judge(NONE);
        assertEquals(Verdict.SAFE, outcome.verdict(), outcome.banner());
        assertEquals("no overlap, no lock left behind", outcome.headline());
        assertEquals(Map.of(), outcome.violations());
        assertEquals("Every lock taken was released; pg_locks holds no advisory lock of the run. 2 locks granted, "
                + "0 tries refused, 0 unlocks returned false.", outcome.explanation());
        assertEquals(2L, outcome.metrics().get("trueUnlocks"));
        assertEquals(0L, outcome.metrics().get("locksLeftBehind"));
    }

    @Test
    void anUnlockOnAnotherConnectionLeavesTheLockWhereItWasTaken() throws Exception {
        assertNull(granted(W1, 101));
        String left = unlocked(W1, 101, 102, false);
        assertEquals(W1 + "'s unlock ran on pool-102, which held no lock, and returned false: the lock stayed in "
                + "pool-101, where " + W1 + " took it.", left);
        PgLockObserver.Held kept = new PgLockObserver.Held(101, "pool-101", KEY, null, true, List.of(), false);

        Outcome outcome = verdict.judge(new PgLockObserver.AdvisoryLocks(List.of(kept), List.of()));
        assertEquals(Verdict.STUCK, outcome.verdict(), outcome.banner());
        assertEquals("advisory lock " + KEY + " orphaned in pool-101", outcome.headline());
        assertEquals(Map.of(AdvisoryScenario.ORPHANED, 1L, AdvisoryScenario.LEFT_BEHIND, 1L), outcome.violations());
        assertTrue(outcome.explanation().contains(left), outcome.explanation());
        assertEquals(List.of(KEY), triedFresh, "a fresh session tried the orphan's key");
        assertTrue(outcome.explanation().contains("A fresh session asked for it just now and was refused."),
                outcome.explanation());

        Outcome freed = verdict.judge(NONE);
        assertEquals(Verdict.STUCK, freed.verdict(), "gone from pg_locks by the end, left behind all the same");
        assertEquals("1 lock left behind, freed only by an unlock nobody owed", freed.headline());
    }

    /** The server granted {@code worker} the invoice's lock on backend {@code pid}: as {@link AdvisoryWorker} tells it. */
    private String granted(String worker, int pid) {
        ledger.granted();
        String overlap = oracle.enter(worker, INVOICE, pid);
        ledger.believes(worker, INVOICE, pid, 1);
        return overlap;
    }

    /** {@code worker}'s unlock ran on backend {@code on} and answered {@code answer}; its lock was granted on {@code grantedOn}. */
    private String unlocked(String worker, int grantedOn, int on, boolean answer) {
        oracle.leave(worker, INVOICE);
        ledger.believes(worker, INVOICE, grantedOn, 0);
        String session = AdvisoryScenario.sessionName(on);
        return answer ? oracle.released(worker, session, true)
                : oracle.unlockFailed(worker, session, AdvisoryScenario.sessionName(grantedOn), true);
    }
}
