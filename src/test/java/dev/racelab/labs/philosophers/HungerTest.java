package dev.racelab.labs.philosophers;

import dev.racelab.engine.ActorState;
import dev.racelab.engine.Event;
import dev.racelab.engine.EventKind;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The hunger the verdict names is the hunger the run decided on. A run of try-backoff in lockstep
 * ends when its supervisor's poll sees a philosopher hungry for longer than the timeout; the
 * philosophers go on until they are stopped, after the diagnosis. Under a heavy load one of them
 * ate in that gap, and the diagnosis, measuring only the hunger still going, found nobody starving
 * and said "no progress, but no cycle of waiting either" (a build under verify-under-load).
 */
class HungerTest {

    private static final long MS = 1_000_000L;
    private static final int FIRST = 10;
    private static final int SECOND = 11;

    private final Hunger hunger = new Hunger();
    private long seq;

    private void state(long ms, int actor, ActorState state) {
        hunger.accept(new Event(seq++, ms * MS, actor, EventKind.STATE, null, state.ordinal()));
    }

    private void putBack(long ms, int actor) {
        hunger.accept(new Event(seq++, ms * MS, actor, EventKind.RETRY, "fork", 0));
    }

    @Test
    void aSnapshotKeepsTheHungerTheRunDecidedOnWhenThePhilosopherEatsAMomentLater() {
        state(0, FIRST, ActorState.HUNGRY);
        state(0, SECOND, ActorState.HUNGRY);
        state(300, SECOND, ActorState.EATING);
        state(400, SECOND, ActorState.THINKING);
        putBack(1_000, FIRST);
        putBack(1_500, FIRST);

        Hunger.Snapshot decided = hunger.snapshot(2_100 * MS);
        state(2_120, FIRST, ActorState.EATING);

        assertEquals(2_100 * MS, decided.hungryFor(FIRST), "starving when the run decided");
        assertEquals(0, decided.hungryFor(SECOND), "not hungry then");
        assertEquals(300 * MS, decided.lastMealNanos(), "the last meal before it");
        assertEquals(2, decided.retriesSinceLastMeal());
        assertEquals(0, hunger.hungryFor(FIRST, 2_130 * MS), "a moment later it ate: the fold alone says not hungry");
        Hunger.Hungriest hungriest = hunger.hungriest(List.of(FIRST, SECOND), 2_130 * MS);
        assertEquals(FIRST, hungriest.actor());
        assertTrue(hungriest.millis() > 2_000 && !hungriest.ongoing(), "its hunger, ended, still the longest: "
                + hungriest);
    }
}
