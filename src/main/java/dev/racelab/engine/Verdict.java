package dev.racelab.engine;

/** How a run ended, from best to worst. */
public enum Verdict {
    /** Every invariant held. */
    SAFE("every invariant held"),
    /** An invariant was violated: the race happened. */
    RACE("an invariant was violated"),
    /** Workers wait for each other in a cycle and none can go on. */
    DEADLOCK("the workers wait for each other in a cycle"),
    /** No progress, but no cycle either: a lock leaked, a wake-up was lost, a waiter was forgotten. */
    STUCK("no progress and no way forward"),
    /** The run could not proceed: a server failed or the lab broke. */
    ERROR("the run could not proceed");

    private final String meaning;

    Verdict(String meaning) {
        this.meaning = meaning;
    }

    /** One sentence a student understands. */
    public String meaning() {
        return meaning;
    }

    /** The worse of two verdicts. */
    public Verdict worse(Verdict other) {
        return other.ordinal() > ordinal() ? other : this;
    }
}
