package dev.racelab.labs.advisory;

import dev.racelab.backend.AdvisoryKey;
import dev.racelab.engine.ActorState;
import dev.racelab.engine.Event;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * PostgreSQL's advisory locks as a run's record tells them, session by session: every lock call
 * the server granted is on its worker's lane with the backend pid it ran on, and so is every
 * unlock and what it answered, so the count each pooled session holds of each key follows from
 * the record alone, as does what each worker believes it holds, and where (the session its lock
 * was first granted in: a session holding a key takes every later grant of it). A session holding a key more
 * times than the workers believe they hold it holds locks nobody will unlock: left behind (the
 * oracle's ✕ marks count each, once, even if an unlock nobody owed frees it later). Built
 * from events only, so a recording opened with no server shows the same; the server lane, when the
 * run was observed, shows {@code pg_locks} itself beside it.
 *
 * <p>Owned by the thread that feeds it.
 */
final class LockTable {

    /** What one worker believes: that it holds the lock on {@code resource} {@code times} times. */
    record Belief(String resource, int times) {
    }

    /** One session's share of a key: held {@code times} times, of which the workers named believe in {@code believed}. */
    record Hold(int pid, String session, AdvisoryKey key, int times, int believed, List<Integer> believers) {
        /** Held more often than anyone believes: the rest nobody will ever unlock. */
        int leftBehind() {
            return Math.max(0, times - believed);
        }
    }

    private final LockKeys keys;
    private final boolean transactionLevel;
    /** Backend pid → session name, in the order the run first used each. */
    private final Map<Integer, String> sessions = new LinkedHashMap<>();
    /** Per backend pid: how many times it holds each key. */
    private final Map<Integer, Map<AdvisoryKey, Integer>> held = new HashMap<>();
    /** Each resource's lock key, as the workers announced it. */
    private final Map<String, AdvisoryKey> keyOf = new HashMap<>();
    /** Per worker actor: its invoice, how often it believes it holds its lock, how often it was refused. */
    private final Map<Integer, String> resources = new TreeMap<>();
    private final Map<Integer, Integer> believed = new HashMap<>();
    /** Per worker actor that believes it holds its lock: the backend pid the lock was granted on first. */
    private final Map<Integer, Integer> grantedOn = new HashMap<>();
    private final Map<Integer, Integer> refusedOf = new HashMap<>();
    /** Per worker actor: what its unlocks answered, in order, over the run. */
    private final Map<Integer, List<Boolean>> answers = new HashMap<>();
    private long acquisitions;
    private long refused;
    private long gaveUp;
    private long trueUnlocks;
    private long falseUnlocks;
    private long overlaps;
    private long collisions;
    private long leftBehind;

    LockTable(LockKeys keys, boolean transactionLevel) {
        this.keys = keys;
        this.transactionLevel = transactionLevel;
    }

    /** Takes a worker's event; returns whether anything here changed. */
    boolean accept(Event e) {
        switch (e.kind()) {
            case LOCK_KEY -> {
                return !keys.decode(e.value()).equals(keyOf.put(e.subject(), keys.decode(e.value())));
            }
            case CONNECTED -> {
                return sessions.putIfAbsent((int) e.value(), e.subject()) == null;
            }
            case LOCK_ACQUIRED -> {
                acquisitions++;
                resources.put(e.actor(), e.subject());
                held((int) e.value()).merge(keyOf(e.subject()), 1, Integer::sum);
                if (believed.merge(e.actor(), 1, Integer::sum) == 1) {
                    grantedOn.put(e.actor(), (int) e.value());
                }
            }
            case LOCK_RELEASED -> {
                held((int) e.value()).merge(keyOf(e.subject()), -1, Integer::sum);
                if (!transactionLevel) {
                    trueUnlocks++;
                    answers.computeIfAbsent(e.actor(), a -> new ArrayList<>()).add(true);
                }
                believeOnceLess(e.actor());
            }
            case UNLOCK_FALSE -> {
                falseUnlocks++;
                answers.computeIfAbsent(e.actor(), a -> new ArrayList<>()).add(false);
                believeOnceLess(e.actor());
            }
            case RETRY -> {
                refused++;
                refusedOf.merge(e.actor(), 1, Integer::sum);
            }
            case LOCK_REFUSED -> {
                refused++;
                gaveUp++;
                refusedOf.merge(e.actor(), 1, Integer::sum);
            }
            case LOCK_REQUESTED -> resources.putIfAbsent(e.actor(), e.subject());
            case KEY_COLLISION -> collisions++;
            case VIOLATION -> {
                if (AdvisoryScenario.OVERLAPS.equals(e.subject())) {
                    overlaps += e.value();
                } else if (AdvisoryScenario.LEFT_BEHIND.equals(e.subject())) {
                    leftBehind += e.value();
                } else {
                    return false;
                }
            }
            case STATE -> {
                if (e.state() != ActorState.FAILED || believed.getOrDefault(e.actor(), 0) == 0) {
                    return false;
                }
                believed.put(e.actor(), 0);
            }
            default -> {
                return false;
            }
        }
        return true;
    }

    /**
     * The lock key of {@code resource}, as its workers announced it; for a record without the
     * announcement, the article's hash of the bare name, which tells resources apart as well.
     */
    AdvisoryKey keyOf(String resource) {
        return keyOf.computeIfAbsent(resource, r -> AdvisoryKey.of(LockKeys.articleHash(r)));
    }

    /** The lock key of {@code resource} if a worker announced it, else null. */
    AdvisoryKey announcedKey(String resource) {
        return keyOf.get(resource);
    }

    private Map<AdvisoryKey, Integer> held(int pid) {
        return held.computeIfAbsent(pid, p -> new HashMap<>());
    }

    private void believeOnceLess(int actor) {
        believed.computeIfPresent(actor, (a, times) -> Math.max(0, times - 1));
    }

    /** The sessions the run used, in the order it first used them: pid → name. */
    Map<Integer, String> sessions() {
        return sessions;
    }

    /** Every key some session holds now, session by session, with who believes in it. */
    List<Hold> holds() {
        List<Hold> holds = new ArrayList<>();
        for (Map.Entry<Integer, String> session : sessions.entrySet()) {
            Map<AdvisoryKey, Integer> keysHeld = held.getOrDefault(session.getKey(), Map.of());
            for (Map.Entry<AdvisoryKey, Integer> lock : keysHeld.entrySet()) {
                if (lock.getValue() <= 0) {
                    continue;
                }
                List<Integer> believers = new ArrayList<>();
                int times = 0;
                for (Map.Entry<Integer, Integer> belief : believed.entrySet()) {
                    if (belief.getValue() > 0 && keyOf(resources.get(belief.getKey())).equals(lock.getKey())
                            && grantedOn.getOrDefault(belief.getKey(), -1).equals(session.getKey())) {
                        believers.add(belief.getKey());
                        times += belief.getValue();
                    }
                }
                holds.add(new Hold(session.getKey(), session.getValue(), lock.getKey(), lock.getValue(), times, believers));
            }
        }
        return holds;
    }

    /** What worker {@code actor} believes now, or null before it asked for any lock. */
    Belief belief(int actor) {
        String resource = resources.get(actor);
        return resource == null ? null : new Belief(resource, believed.getOrDefault(actor, 0));
    }

    /** How often worker {@code actor}'s tries were refused. */
    int refusedOf(int actor) {
        return refusedOf.getOrDefault(actor, 0);
    }

    /** What worker {@code actor}'s unlocks answered since it last took its lock afresh: true, true, false. */
    List<Boolean> answers(int actor) {
        return answers.getOrDefault(actor, List.of());
    }

    /**
     * The locks left behind so far, as the oracle's ✕ marks count them: one each time a worker
     * stopped believing in a lock its connection kept. What the sessions still hold for nobody now
     * is {@link Hold#leftBehind}, per session.
     */
    long leftBehind() {
        return leftBehind;
    }

    long acquisitions() {
        return acquisitions;
    }

    long refused() {
        return refused;
    }

    /** Requests that failed: their last try refused, "still locked". */
    long gaveUp() {
        return gaveUp;
    }

    long trueUnlocks() {
        return trueUnlocks;
    }

    long falseUnlocks() {
        return falseUnlocks;
    }

    long overlaps() {
        return overlaps;
    }

    long collisions() {
        return collisions;
    }

    LockKeys keys() {
        return keys;
    }
}
