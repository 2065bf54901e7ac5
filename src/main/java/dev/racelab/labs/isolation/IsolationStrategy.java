package dev.racelab.labs.isolation;

import dev.racelab.engine.Strategy;

/**
 * How the sessions' steps are ordered: as one of the spec's permutations, or as the user releases
 * them. Both run the spec's own SQL at the isolation levels it asks for; whether an order races is
 * the spec's story, so both count as orders that may.
 */
enum IsolationStrategy implements Strategy {
    PERMUTATION(About.broken("permutation", "A permutation",
            "the spec's permutation chosen with 'permutation' (1 is the first), by isolationtester's rules: a step "
                    + "is sent once the one before it is done or waits")),
    BY_HAND(About.broken("by-hand", "By hand",
            "the chosen permutation's steps, each session's in its own order, sent as you release the sessions "
                    + "one step at a time (step mode): the interleaving is yours"));

    private final About about;

    IsolationStrategy(About about) {
        this.about = about;
    }

    @Override
    public About about() {
        return about;
    }
}
