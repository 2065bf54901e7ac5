package dev.racelab.labs.philosophers;

import dev.racelab.engine.ActorState;
import dev.racelab.engine.Event;
import dev.racelab.engine.EventKind;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Who was starving, as the verdict names them, is who was starving when the run decided to end.
 * A run of try-backoff in lockstep ends when its supervisor's poll sees a philosopher hungry for
 * longer than the timeout; the philosophers go on until they are stopped, after the diagnosis.
 * Under a heavy load one of them ate in that gap, and the diagnosis, measuring only the hunger
 * still going, found nobody starving: "no progress, but no cycle of waiting either" (a build
 * under verify-under-load).
 */
@Tag("engine")
class HungerTest {

    private static final long MS = 1_000_000L;
    private static final long TIMEOUT = 2_000 * MS;
    private static final int FIRST = 10;
    private static final int SECOND = 11;
    private static final List<Integer> BOTH = List.of(FIRST, SECOND);

    private final Hunger hunger = new Hunger();
    private long seq;

    private void state(long ms, int actor, ActorState state) {
        hunger.accept(new Event(seq++, ms * MS, actor, EventKind.STATE, null, state.ordinal()));
    }

    private void putBack(long ms, int actor) {
        hunger.accept(new Event(seq++, ms * MS, actor, EventKind.RETRY, "fork", 0));
    }

    @Test
    void aPhilosopherWhoAteJustAfterTheRunDecidedWasStarvingAllTheSame() {
        state(0, FIRST, ActorState.HUNGRY);
        state(0, SECOND, ActorState.HUNGRY);
        state(300, SECOND, ActorState.EATING);
        state(400, SECOND, ActorState.THINKING);
        putBack(1_000, FIRST);
        putBack(1_500, FIRST);

        Hunger.Snapshot decided = hunger.snapshot(2_100 * MS);
        state(2_120, FIRST, ActorState.EATING);
        long asOf = 2_130 * MS;

        assertEquals(0, hunger.hungryFor(FIRST, asOf), "a moment later it ate: the fold alone says not hungry");
        assertEquals(List.of(FIRST), hunger.starving(BOTH, decided, asOf, TIMEOUT), "starving when the run decided");
        assertEquals(300 * MS, decided.lastMealNanos(), "the last meal before the decision");
        assertEquals(2, decided.retriesSinceLastMeal(), "forks put back since");
        Hunger.Hungriest hungriest = hunger.hungriest(BOTH, asOf);
        assertEquals(FIRST, hungriest.actor(), "and the hungriest the verdict names");
        assertTrue(hungriest.millis() > 2_000 && !hungriest.ongoing(), "its hunger, ended, still the longest: "
                + hungriest);
    }

    @Test
    void aPhilosopherWhoAteBeforeTheRunDecidedIsNotStarving() {
        state(0, FIRST, ActorState.HUNGRY);
        state(0, SECOND, ActorState.HUNGRY);
        state(1_990, FIRST, ActorState.EATING);
        state(2_000, FIRST, ActorState.THINKING);
        state(2_050, FIRST, ActorState.HUNGRY);

        Hunger.Snapshot decided = hunger.snapshot(2_100 * MS);

        assertEquals(50 * MS, decided.hungryFor(FIRST), "hungry again, but only since its meal");
        assertEquals(List.of(SECOND), hunger.starving(BOTH, decided, 2_130 * MS, TIMEOUT),
                "only the one that never ate");
    }
}
