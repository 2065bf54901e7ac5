package dev.racelab.engine;

/**
 * The roles colours play. States, marks and lab pictures name inks; the window maps each to one
 * colour of its colour-blind-safe palette, so every lab speaks the same visual language and a new
 * state or mark needs no colour of its own.
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
        return state.ink();
    }
}
