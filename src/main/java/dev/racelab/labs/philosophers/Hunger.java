package dev.racelab.labs.philosophers;

import dev.racelab.engine.ActorState;
import dev.racelab.engine.Event;
import dev.racelab.engine.EventKind;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Meals and hunger, folded from a run's events: the one definition the oracle and the table view
 * share, so the verdict, the panels and the picture show the same numbers.
 *
 * <p>A philosopher is hungry from the first {@code HUNGRY} state after thinking until its next
 * {@code EATING} state, which is one meal; putting a fork back and trying again (try-backoff) does
 * not end the hunger. A hunger still going counts up to the instant it is measured at: a
 * deadlocked or starving philosopher is as hungry as the time it has waited, not 0.
 *
 * <p>Not thread-safe: each reader (the scenario's supervisor thread, a view's thread) folds its own.
 */
final class Hunger {

    /** Per actor: when its hunger began, while it is hungry. */
    private final Map<Integer, Long> hungrySince = new HashMap<>();
    /** Per actor: the longest hunger that ended in a meal. */
    private final Map<Integer, Long> longestEnded = new HashMap<>();
    private final Map<Integer, Integer> meals = new HashMap<>();
    private long lastMealNanos = Long.MIN_VALUE;
    private long retries;
    private long retriesAtLastMeal;

    /** Folds one event in; returns whether it changed anything. */
    boolean accept(Event e) {
        if (e.kind() == EventKind.RETRY) {
            retries++;
            return true;
        }
        if (e.kind() != EventKind.STATE) {
            return false;
        }
        int actor = e.actor();
        ActorState state = e.state();
        if (state == ActorState.HUNGRY && !hungrySince.containsKey(actor)) {
            hungrySince.put(actor, e.nanos());
            return true;
        }
        if (state == ActorState.EATING && hungrySince.containsKey(actor)) {
            longestEnded.merge(actor, e.nanos() - hungrySince.remove(actor), Math::max);
            meals.merge(actor, 1, Integer::sum);
            lastMealNanos = Math.max(lastMealNanos, e.nanos());
            retriesAtLastMeal = retries;
            return true;
        }
        return false;
    }

    int meals(int actor) {
        return meals.getOrDefault(actor, 0);
    }

    boolean hungry(int actor) {
        return hungrySince.containsKey(actor);
    }

    /** How long {@code actor} has been hungry as of {@code asOf}, in the hunger still going; 0 if it is not hungry. */
    long hungryFor(int actor, long asOf) {
        Long since = hungrySince.get(actor);
        return since == null ? 0 : asOf - since;
    }

    /** The longest {@code actor} has been hungry, a hunger still going counted up to {@code asOf}. */
    long longestNanos(int actor, long asOf) {
        return Math.max(longestEnded.getOrDefault(actor, 0L), hungryFor(actor, asOf));
    }

    /** When the hunger that began first among those still going began; {@link Long#MAX_VALUE} if nobody is hungry. */
    long hungrySince() {
        return hungrySince.values().stream().mapToLong(Long::longValue).min().orElse(Long.MAX_VALUE);
    }

    /** Forks put back after the second was taken (try-backoff), since the last meal began. */
    long retriesSinceLastMeal() {
        return retries - retriesAtLastMeal;
    }

    long retries() {
        return retries;
    }

    /** The fold as it stands, kept as of the instant {@code at}. */
    Snapshot snapshot(long at) {
        return new Snapshot(at, Map.copyOf(hungrySince), lastMealNanos, retriesSinceLastMeal());
    }

    /**
     * The fold as it stood at one instant: who was hungry since when, when the last meal began
     * ({@link Long#MIN_VALUE} before the first), how many forks went back since. A run decides to
     * end on what it saw at one poll; a philosopher who eats a moment later was starving all the
     * same when it decided.
     */
    record Snapshot(long at, Map<Integer, Long> hungrySince, long lastMealNanos, long retriesSinceLastMeal) {

        /** How long {@code actor} had been hungry at {@link #at}; 0 if it was not hungry then. */
        long hungryFor(int actor) {
            Long since = hungrySince.get(actor);
            return since == null ? 0 : at - since;
        }
    }

    /**
     * The philosophers (of {@code actors}, in order) starving: hungry for longer than {@code
     * timeoutNanos} when the run {@code decided} to end, or still as of {@code asOf}.
     */
    List<Integer> starving(List<Integer> actors, Snapshot decided, long asOf, long timeoutNanos) {
        return actors.stream().filter(actor -> decided.hungryFor(actor) > timeoutNanos
                || hungryFor(actor, asOf) > timeoutNanos).toList();
    }

    /** The philosopher (of {@code actors}, in order; the first wins a tie) who has been hungry longest, as of {@code asOf}. */
    Hungriest hungriest(List<Integer> actors, long asOf) {
        int worst = actors.isEmpty() ? -1 : actors.get(0);
        long most = -1;
        for (int actor : actors) {
            long hunger = longestNanos(actor, asOf);
            if (hunger > most) {
                most = hunger;
                worst = actor;
            }
        }
        return new Hungriest(worst, Math.max(0, most), hungry(worst));
    }

    /** Who was hungriest, for how long, and whether that hunger still goes on. */
    record Hungriest(int actor, long nanos, boolean ongoing) {

        long millis() {
            return nanos / 1_000_000;
        }
    }

    /** A hunger in the words every display uses: "1183 ms". */
    static String words(long millis) {
        return millis + " ms";
    }
}
