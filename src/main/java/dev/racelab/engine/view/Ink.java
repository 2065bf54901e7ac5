package dev.racelab.engine.view;

import dev.racelab.engine.ActorState;

/**
 * The roles colours play. Labs draw with inks; the window maps each to one colour of its
 * colour-blind-safe palette, so every lab speaks the same visual language.
 */
public enum Ink {
    TEXT, MUTED, SURFACE, OUTLINE,
    RUNNING, WAITING, HOLDING, CRITICAL, DELAYED, AT_GATE, THINKING, HUNGRY, EATING, DONE, FAILED,
    /** Things that went right: SAFE verdicts, accepted writes. */
    SAFE,
    /** Things that went wrong: RACE verdicts, violations, stale writes. */
    RACE,
    /** Fencing tokens, and anything that numbers a turn. */
    TOKEN,
    /** Whatever deserves the eye now: the selected worker, the deadlock cycle. */
    HIGHLIGHT;

    /** The ink of an actor state. */
    public static Ink of(ActorState state) {
        return switch (state) {
            case IDLE -> MUTED;
            case RUNNING -> RUNNING;
            case WAITING -> WAITING;
            case HOLDING -> HOLDING;
            case CRITICAL -> CRITICAL;
            case DELAYED -> DELAYED;
            case AT_GATE -> AT_GATE;
            case THINKING -> THINKING;
            case HUNGRY -> HUNGRY;
            case EATING -> EATING;
            case DONE -> DONE;
            case FAILED -> FAILED;
        };
    }
}
