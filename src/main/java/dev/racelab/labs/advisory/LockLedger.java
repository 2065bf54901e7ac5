package dev.racelab.labs.advisory;

import dev.racelab.engine.Event;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * The shared record of one run of the advisory-lock lab: what its workers did (locks granted,
 * tries refused, requests given up, unlocks that answered true or false, deaths), who is inside
 * each invoice's critical section and who believes it holds which lock now, who is finished, the
 * first words for each kind of trouble, and where the ✕ marks are.
 *
 * <p>It decides nothing: the workers and the {@link AdvisoryOracle} write it, the {@link
 * AdvisoryVerdict} reads it. Threads: every worker writes it from its own thread, so the counts
 * are atomic and the maps concurrent; the verdict reads it after the workers ended, or while they
 * are stuck.
 */
final class LockLedger {

    /** A worker's belief: it holds the lock on {@code resource} {@code times} times, the first granted on backend {@code pid}. */
    record Hold(String resource, int pid, int times) {
    }

    private final LongAdder acquisitions = new LongAdder();
    private final LongAdder refused = new LongAdder();
    private final LongAdder refusedByNobody = new LongAdder();
    private final LongAdder gaveUp = new LongAdder();
    private final LongAdder trueUnlocks = new LongAdder();
    private final LongAdder falseUnlocks = new LongAdder();
    private final LongAdder overlaps = new LongAdder();
    private final LongAdder collisions = new LongAdder();
    private final LongAdder deaths = new LongAdder();
    /** Locks left behind in a connection nobody believes holds them, one ✕ each, whatever happens to them later. */
    private final LongAdder leftBehind = new LongAdder();
    /** Per invoice, the workers inside its critical section now (from a grant to the first unlock). */
    private final Map<String, Set<String>> inside = new ConcurrentHashMap<>();
    /** Per worker that believes it holds its lock now: the invoice it is for, and the pid it was granted on first. */
    private final Map<String, Hold> holding = new ConcurrentHashMap<>();
    /** Workers that finished their operations or died: the rest may still move. */
    private final Set<String> finished = ConcurrentHashMap.newKeySet();
    /** How the first lock was left behind, in words, for the verdict; and the overlaps, the same. */
    private final AtomicReference<String> firstLeftBehind = new AtomicReference<>();
    private final AtomicReference<String> firstOverlap = new AtomicReference<>();
    private final AtomicReference<String> firstCollision = new AtomicReference<>();
    /** How an unlock that no worker owed first released a lock, in words: it may free a lock left behind. */
    private final AtomicReference<String> firstStrayRelease = new AtomicReference<>();
    /** Sequence numbers of the ✕ marks, for the outcome's places. */
    private final List<Long> places = new CopyOnWriteArrayList<>();

    void granted() {
        acquisitions.increment();
    }

    /** A try refused; {@code byNobody} when no worker believed it held the lock just then. */
    void refused(boolean byNobody) {
        refused.increment();
        if (byNobody) {
            refusedByNobody.increment();
        }
    }

    void gaveUp() {
        gaveUp.increment();
    }

    void unlockAnswered(boolean answer) {
        (answer ? trueUnlocks : falseUnlocks).increment();
    }

    void died() {
        deaths.increment();
    }

    void finished(String worker) {
        finished.add(worker);
    }

    /** Where a ✕ mark is: the violation's event, or nothing if the log was full. */
    void place(Event violation) {
        if (violation != null) {
            places.add(violation.seq());
        }
    }

    /** The workers inside {@code resource}'s critical section now, to be added to or taken from. */
    Set<String> inside(String resource) {
        return inside.computeIfAbsent(resource, k -> ConcurrentHashMap.newKeySet());
    }

    void leave(String worker, String resource) {
        Set<String> in = inside.get(resource);
        if (in != null) {
            in.remove(worker);
        }
    }

    /** {@code worker} believes it holds {@code resource}'s lock {@code times} times (0: not at all), the first granted on {@code pid}. */
    void believes(String worker, String resource, int pid, int times) {
        if (times > 0) {
            holding.put(worker, new Hold(resource, pid, times));
        } else {
            holding.remove(worker);
        }
    }

    /** Who believes it holds a lock now, and the belief of each. */
    Map<String, Hold> holding() {
        return holding;
    }

    void overlap(String how) {
        overlaps.increment();
        firstOverlap.compareAndSet(null, how);
    }

    void collision(String how) {
        collisions.increment();
        firstCollision.compareAndSet(null, how);
    }

    /** {@code count} locks left behind, {@code how} in words (0 locks: only the words, if they are the first). */
    void leftBehind(String how, int count) {
        firstLeftBehind.compareAndSet(null, how);
        leftBehind.add(count);
    }

    void strayRelease(String how) {
        firstStrayRelease.compareAndSet(null, how);
    }

    long acquisitions() {
        return acquisitions.sum();
    }

    long refusedTries() {
        return refused.sum();
    }

    long refusedByNobody() {
        return refusedByNobody.sum();
    }

    long requestsGivenUp() {
        return gaveUp.sum();
    }

    long trueUnlocks() {
        return trueUnlocks.sum();
    }

    long falseUnlocks() {
        return falseUnlocks.sum();
    }

    long overlaps() {
        return overlaps.sum();
    }

    long collisions() {
        return collisions.sum();
    }

    long deaths() {
        return deaths.sum();
    }

    /**
     * Locks left behind: each time a worker stopped believing it held a lock its connection kept
     * (an unlock on another connection, a death at the fault gate), as many as the ✕ marks. An
     * unlock nobody owed may free one later, by luck; it was left behind all the same.
     */
    long locksLeftBehind() {
        return leftBehind.sum();
    }

    boolean hasFinished(String worker) {
        return finished.contains(worker);
    }

    /** The first of each kind of trouble in words, or null if there was none. */
    String firstLeftBehind() {
        return firstLeftBehind.get();
    }

    String firstOverlap() {
        return firstOverlap.get();
    }

    String firstCollision() {
        return firstCollision.get();
    }

    String firstStrayRelease() {
        return firstStrayRelease.get();
    }

    /** The ✕ marks' sequence numbers so far, in the order they were made. */
    List<Long> places() {
        return places;
    }
}
