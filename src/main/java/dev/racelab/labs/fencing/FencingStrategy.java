package dev.racelab.labs.fencing;

import dev.racelab.engine.Strategy;

/** How a client writes the book's price with its token. */
enum FencingStrategy implements Strategy {
    BLIND_WRITE(About.broken("blind-write", "Blind write",
            "take a token and store it with the price, but never compare it: the last writer wins")),
    CHECK_THEN_WRITE(About.broken("check-then-write", "Check, then write",
            "compare the token with the latest one in one query, write in another: a pause between them "
                    + "lets a stale write through")),
    FENCED_CAS(About.fix("fenced-cas", "Fenced compare-and-set",
            "UPDATE … WHERE token < mine: the check and the write are one statement, stale writes are rejected"));

    private final About about;

    FencingStrategy(About about) {
        this.about = about;
    }

    @Override
    public About about() {
        return about;
    }
}
