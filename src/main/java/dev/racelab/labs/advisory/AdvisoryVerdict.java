package dev.racelab.labs.advisory;

import dev.racelab.backend.AdvisoryKey;
import dev.racelab.backend.PgLockObserver;
import dev.racelab.engine.Outcome;
import dev.racelab.engine.Verdict;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The advisory-lock lab's verdict, from what the {@link LockLedger} holds and what {@code
 * pg_locks} shows.
 *
 * <p>{@code STUCK} when an advisory lock of the run is held at the end, or for ever, by a session
 * no worker believes holds it: {@code pg_locks}, read on RaceLab's own session, names the pool
 * connection; a fresh session's try is refused then and there. {@code STUCK} as well when a lock
 * was left behind (a ✕) and is gone by the end only because an unlock no worker owed released it
 * ({@link #freedByLuck}): a run with ✕ marks for locks left behind is never SAFE. {@code RACE}
 * when two workers were inside the critical section of one invoice at once. {@code SAFE}
 * otherwise, with the counts. With blocking locks, a run whose every unfinished worker waits in
 * PostgreSQL for a lock that only an orphan or a waiting worker holds ends {@code STUCK} a second
 * after it went quiet ({@link #deadlock}): nothing can ever unlock it.
 *
 * <p>It asks the server nothing itself: the scenario hands it {@code pg_locks} as read, and
 * answers its two questions ({@link Admin}) on RaceLab's own session. Threads: the run's
 * supervisor calls it, after the workers ended or while they are stuck.
 */
final class AdvisoryVerdict {

    /** What the verdict asks the server, on RaceLab's own session. */
    interface Admin {
        /** Whether a fresh session is refused the lock {@code key} now; if it got it, it lets it go at once. */
        boolean refusedNow(AdvisoryKey key) throws SQLException;

        /** How many times the run's work was done, as the table counts it. */
        long workDone() throws SQLException;
    }

    private final LockLedger ledger;
    /** Each resource's lock key in this run. */
    private final Map<String, AdvisoryKey> keyOf;
    private final LockKeys.Resources resources;
    private final int workers;
    private final int poolSize;
    private final Admin admin;

    AdvisoryVerdict(LockLedger ledger, Map<String, AdvisoryKey> keyOf, LockKeys.Resources resources, int workers,
                    int poolSize, Admin admin) {
        this.ledger = ledger;
        this.keyOf = keyOf;
        this.resources = resources;
        this.workers = workers;
        this.poolSize = poolSize;
        this.admin = admin;
    }

    /** The run's outcome once its workers ended, with {@code locks} as {@code pg_locks} shows them now. */
    Outcome judge(PgLockObserver.AdvisoryLocks locks) throws SQLException {
        if (!locks.orphans().isEmpty()) {
            return stuck(locks, false);
        }
        if (ledger.locksLeftBehind() > 0) {
            return freedByLuck(locks);
        }
        Map<String, Long> violations = new LinkedHashMap<>();
        long overlaps = ledger.overlaps();
        if (overlaps > 0) {
            violations.put(AdvisoryScenario.OVERLAPS, overlaps);
            return new Outcome(Verdict.RACE, count(overlaps, "overlapping critical section"),
                    ledger.firstOverlap() + " " + totals(), violations, metrics(locks), ledger.places());
        }
        String headline = "no overlap, no lock left behind";
        if (ledger.collisions() > 0) {
            headline += "; " + count(ledger.collisions(), "time") + " another invoice's lock stood in the way";
        }
        return new Outcome(Verdict.SAFE, headline, (collided() + "Every lock taken was released; pg_locks holds no "
                + "advisory lock of the run. " + totals()).strip(), violations, metrics(locks), ledger.places());
    }

    /**
     * Quiet for a second with blocking locks: if every worker still going waits in PostgreSQL for
     * a lock that only an orphan, or only workers that wait themselves, hold, nothing can ever
     * unlock it, so the run ends now as {@link #diagnose} would at the timeout; null otherwise.
     */
    Outcome deadlock(PgLockObserver.AdvisoryLocks locks) throws SQLException {
        return hopeless(locks) ? stuck(locks, true) : null;
    }

    /** No progress for the timeout: an orphan or a hopeless wait named, or null for the engine's own STUCK. */
    Outcome diagnose(PgLockObserver.AdvisoryLocks locks) throws SQLException {
        return !locks.orphans().isEmpty() || hopeless(locks) ? stuck(locks, true) : null;
    }

    /**
     * Whether every unfinished worker waits in PostgreSQL for an advisory lock whose holder no
     * worker that can still move believes it holds.
     */
    private boolean hopeless(PgLockObserver.AdvisoryLocks locks) {
        Map<String, PgLockObserver.Awaited> waits = waits(locks);
        List<String> going = going();
        if (going.isEmpty() || !waits.keySet().containsAll(going)) {
            return false;
        }
        for (PgLockObserver.Awaited wait : waits.values()) {
            PgLockObserver.Held holder = heldFor(locks, wait.key());
            if (holder == null || !holder.believers().stream().allMatch(b -> waits.containsKey(b.worker()))) {
                return false;
            }
        }
        return true;
    }

    private static Map<String, PgLockObserver.Awaited> waits(PgLockObserver.AdvisoryLocks locks) {
        Map<String, PgLockObserver.Awaited> waits = new LinkedHashMap<>();
        locks.awaited().stream().filter(a -> a.user() != null).forEach(a -> waits.putIfAbsent(a.user(), a));
        return waits;
    }

    private static PgLockObserver.Held heldFor(PgLockObserver.AdvisoryLocks locks, AdvisoryKey key) {
        return locks.held().stream().filter(h -> h.key().equals(key)).findFirst().orElse(null);
    }

    /** The workers that have not finished their operations nor died, in order. */
    private List<String> going() {
        List<String> going = new ArrayList<>();
        for (int i = 0; i < workers; i++) {
            String name = AdvisoryLockLab.WORKER + "-" + (i + 1);
            if (!ledger.hasFinished(name)) {
                going.add(name);
            }
        }
        return going;
    }

    /**
     * STUCK: the orphans {@code pg_locks} shows, by the pool connection holding each, how the
     * first was left behind, and what it blocked; {@code live} while workers wait for it now.
     */
    private Outcome stuck(PgLockObserver.AdvisoryLocks locks, boolean live) throws SQLException {
        List<PgLockObserver.Held> orphans = locks.orphans();
        Map<String, PgLockObserver.Awaited> waits = waits(locks);
        Map<String, Long> violations = new LinkedHashMap<>();
        StringBuilder why = new StringBuilder();
        String headline;
        if (!orphans.isEmpty()) {
            violations.put(AdvisoryScenario.ORPHANED, (long) orphans.size());
            PgLockObserver.Held first = orphans.get(0);
            headline = orphans.size() == 1
                    ? "advisory lock " + first.key() + " orphaned in " + first.session()
                    : orphans.size() + " advisory locks orphaned: " + orphans.stream()
                            .map(h -> h.key() + " in " + h.session()).collect(Collectors.joining(", "));
            why.append(orphans.size() == 1 ? first.session() + " holds it" : "Their connections hold them")
                    .append(", back in the pool; no worker believes it holds ").append(orphans.size() == 1 ? "it" : "them")
                    .append(", so nobody will ever unlock ").append(orphans.size() == 1 ? "it. " : "them. ");
            if (ledger.firstLeftBehind() != null) {
                why.append(ledger.firstLeftBehind()).append(' ');
            }
        } else {
            headline = count(waits.size(), "worker") + " wait" + (waits.size() == 1 ? "s" : "") + " for ever";
        }
        if (!waits.isEmpty()) {
            why.append(String.join(", ", waits.keySet())).append(waits.size() == 1 ? " waits" : " wait")
                    .append(" in pg_locks (granted = false) for a lock only ")
                    .append(orphans.isEmpty() ? "a worker that waits itself holds. " : "the orphan holds. ");
        }
        refusedByNobody(why);
        if (!live && !orphans.isEmpty() && admin.refusedNow(orphans.get(0).key())) {
            why.append("A fresh session asked for it just now and was refused. ");
        }
        alsoOverlaps(why, violations);
        long left = ledger.locksLeftBehind();
        if (left > 0) {
            violations.put(AdvisoryScenario.LEFT_BEHIND, left);
        }
        why.append(totals());
        return new Outcome(Verdict.STUCK, headline, why.toString().strip(), violations, metrics(locks), ledger.places());
    }

    /**
     * STUCK too when locks were left behind but {@code pg_locks} holds none at the end: an unlock
     * that no worker owed (one too many, on the connection that kept them) released them. While
     * they were left, nobody could unlock them, and every try elsewhere was refused; that one came
     * along is luck, not a fix, so the verdict counts what the ✕ marks count and never says SAFE.
     */
    private Outcome freedByLuck(PgLockObserver.AdvisoryLocks locks) throws SQLException {
        long left = ledger.locksLeftBehind();
        Map<String, Long> violations = new LinkedHashMap<>();
        violations.put(AdvisoryScenario.LEFT_BEHIND, left);
        StringBuilder why = new StringBuilder();
        if (ledger.firstLeftBehind() != null) {
            why.append(ledger.firstLeftBehind()).append(' ');
        }
        if (ledger.firstStrayRelease() != null) {
            why.append(ledger.firstStrayRelease()).append(' ');
        }
        why.append("pg_locks holds no advisory lock of the run at the end only because an unlock nobody owed "
                + "came along; no worker believed it held ").append(left == 1 ? "that lock" : "those locks")
                .append(", and nobody would have unlocked ").append(left == 1 ? "it. " : "them. ");
        refusedByNobody(why);
        alsoOverlaps(why, violations);
        why.append(totals());
        return new Outcome(Verdict.STUCK, count(left, "lock") + " left behind, freed only by an unlock nobody owed",
                why.toString().strip(), violations, metrics(locks), ledger.places());
    }

    /** The tries refused while no worker held the lock, if any: the lock was held by a connection nobody owned. */
    private void refusedByNobody(StringBuilder why) {
        long refused = ledger.refusedByNobody();
        if (refused > 0) {
            why.append(count(refused, "try", "tries")).append(refused == 1 ? " was" : " were")
                    .append(" refused (\"still locked\") while no worker held the lock. ");
        }
    }

    /** The overlaps beside a STUCK, if any: counted among the violations and said after the rest. */
    private void alsoOverlaps(StringBuilder why, Map<String, Long> violations) {
        long overlaps = ledger.overlaps();
        if (overlaps > 0) {
            violations.put(AdvisoryScenario.OVERLAPS, overlaps);
            why.append("Also ").append(count(overlaps, "time")).append(" a worker got the lock while another "
                    + "held it: ").append(ledger.firstOverlap()).append(' ');
        }
    }

    private String totals() {
        return count(ledger.acquisitions(), "lock") + " granted, " + count(ledger.refusedTries(), "try", "tries")
                + " refused" + (ledger.requestsGivenUp() > 0 ? " (" + count(ledger.requestsGivenUp(), "request")
                + " given up)" : "") + ", " + count(ledger.falseUnlocks(), "unlock") + " returned false.";
    }

    private String collided() {
        return ledger.firstCollision() == null ? "" : ledger.firstCollision() + " ";
    }

    private Map<String, Number> metrics(PgLockObserver.AdvisoryLocks locks) throws SQLException {
        Map<String, Number> metrics = new LinkedHashMap<>();
        metrics.put("acquisitions", ledger.acquisitions());
        metrics.put("refusedTries", ledger.refusedTries());
        metrics.put("requestsGivenUp", ledger.requestsGivenUp());
        metrics.put("trueUnlocks", ledger.trueUnlocks());
        metrics.put("falseUnlocks", ledger.falseUnlocks());
        metrics.put("locksLeftBehind", ledger.locksLeftBehind());
        metrics.put("orphanedLocks", locks.orphans().size());
        metrics.put("overlappingSections", ledger.overlaps());
        metrics.put("collisions", ledger.collisions());
        metrics.put("deaths", ledger.deaths());
        metrics.put("workDone", admin.workDone());
        metrics.put("poolSize", poolSize);
        if (resources == LockKeys.Resources.COLLIDING && keyOf.get(LockKeys.FIRST).equals(keyOf.get(LockKeys.SECOND))) {
            metrics.put("collidingKey", keyOf.get(LockKeys.FIRST).key());
        }
        return metrics;
    }

    static String count(long n, String noun) {
        return count(n, noun, noun + "s");
    }

    static String count(long n, String one, String many) {
        return n + " " + (n == 1 ? one : many);
    }
}
