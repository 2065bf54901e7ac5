package dev.racelab.labs.advisory;

import dev.racelab.backend.AdvisoryKey;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What is violated, decided as the run goes: each worker tells the oracle what happened to its
 * lock (it entered its invoice's critical section, it was refused, its unlock answered, it died
 * holding the lock), and the oracle says, in the words its lane shows, whether that broke
 * something: two workers inside one invoice's critical section at once (an overlap), a lock left
 * behind in a connection nobody believes holds it, an unlock nobody owed that released a lock, or
 * another invoice's lock in the way because both names hash to one key. It counts each in the
 * {@link LockLedger}; the worker marks it (a ✕ for an overlap or a lock left behind) on its lane.
 * The {@link AdvisoryVerdict} then judges the run from that ledger and {@code pg_locks}.
 *
 * <p>It needs no server: what it is told is all it knows, so a test can tell it a run's lock
 * events and read the violations and the verdict. Threads: called from every worker's thread; its
 * state is the ledger's.
 */
final class AdvisoryOracle {

    private final LockLedger ledger;
    /** Each resource's lock key in this run. */
    private final Map<String, AdvisoryKey> keyOf;

    AdvisoryOracle(LockLedger ledger, Map<String, AdvisoryKey> keyOf) {
        this.ledger = ledger;
        this.keyOf = keyOf;
    }

    /**
     * {@code worker} is in {@code resource}'s critical section now, its lock first granted on
     * backend {@code pid}: the overlap in words if another worker is inside too (counted), or null.
     */
    String enter(String worker, String resource, int pid) {
        Set<String> in = ledger.inside(resource);
        in.add(worker);
        for (String other : in) {
            if (!other.equals(worker)) {
                LockLedger.Hold theirs = ledger.holding().get(other);
                String words = worker + "'s lock ran on " + AdvisoryScenario.sessionName(pid)
                        + (theirs != null && theirs.pid() == pid ? ", the connection that holds " + other
                                + "'s lock, and a session may take its own lock again: "
                                : " while " + other + " was inside: ")
                        + "both worked on " + resource + " at once.";
                ledger.overlap(words);
                return words;
            }
        }
        return null;
    }

    /** {@code worker} left {@code resource}'s critical section (its first unlock, its commit, its death). */
    void leave(String worker, String resource) {
        ledger.leave(worker, resource);
    }

    /** The workers that believe they hold {@code key} now (any invoice), by name; empty if none. */
    String holders(AdvisoryKey key) {
        // On every refusal, while others wait on the lock: a loop, and a sort only when several hold it.
        String one = null;
        List<String> several = null;
        for (Map.Entry<String, LockLedger.Hold> e : ledger.holding().entrySet()) {
            if (!keyOf.get(e.getValue().resource()).equals(key)) {
                continue;
            }
            if (one == null) {
                one = e.getKey();
            } else {
                if (several == null) {
                    several = new ArrayList<>(List.of(one));
                }
                several.add(e.getKey());
            }
        }
        if (several == null) {
            return one == null ? "" : one;
        }
        several.sort(null);
        return String.join(", ", several);
    }

    /**
     * {@code worker}, asking for {@code resource}'s lock {@code key}, {@code what} ("waits", "was
     * refused"): if another invoice's lock with the same key is held, the collision in words
     * (counted), or null.
     */
    String collision(String worker, String resource, AdvisoryKey key, String what) {
        for (Map.Entry<String, LockLedger.Hold> other : ledger.holding().entrySet()) {
            LockLedger.Hold hold = other.getValue();
            if (!hold.resource().equals(resource) && keyOf.get(hold.resource()).equals(key)) {
                String words = worker + " " + what + " on " + resource + " because " + other.getKey()
                        + " holds the lock on " + hold.resource() + ": both names hash to " + key + ".";
                ledger.collision(words);
                return words;
            }
        }
        return null;
    }

    /**
     * An unlock {@code worker} sent on session {@code on} answered true: if it {@code owed} none,
     * it released a lock held for someone else, said in words (noted for the verdict); else null.
     */
    String released(String worker, String on, boolean owed) {
        ledger.unlockAnswered(true);
        if (owed) {
            return null;
        }
        String words = "an unlock " + worker + " owed nobody released a lock " + on + " held for someone else";
        ledger.strayRelease("Then " + words + ".");
        return words;
    }

    /**
     * An unlock {@code worker} sent on session {@code on} answered false: if it {@code owed} one
     * (its lock granted on session {@code from}), that lock was left behind, said in words and
     * counted; else null.
     */
    String unlockFailed(String worker, String on, String from, boolean owed) {
        ledger.unlockAnswered(false);
        if (!owed) {
            return null;
        }
        String words = worker + "'s unlock ran on " + on + ", which held no lock, and returned false: "
                + "the lock stayed in " + from + ", where " + worker + " took it.";
        ledger.leftBehind(words, 1);
        return words;
    }

    /**
     * {@code worker} died holding {@code resource}'s session lock {@code had} times, and its
     * connection {@code where} went back to the pool without an unlock, keeping the lock: that
     * many locks left behind, one ✕ each. (A transaction-level lock goes with the rollback.)
     */
    void diedHolding(String worker, String resource, String where, int had) {
        ledger.leftBehind(worker + " died holding the lock on " + resource + ": " + where
                + " went back to the pool without an unlock, and kept the lock.", had);
    }
}
