package dev.racelab.labs.philosophers;

import dev.racelab.engine.Strategy;

/** How a philosopher takes its forks. */
enum PhilosophersStrategy implements Strategy {
    NAIVE(About.broken("naive", "Left, then right",
            "take the left fork, then the right: if everyone holds a left fork at once, each waits for its "
                    + "neighbour for ever")),
    ORDERED(About.fix("ordered", "Lower fork first",
            "take the lower-numbered fork first: the last philosopher reaches right first, so no cycle of "
                    + "waiting can close")),
    WAITER(About.fix("waiter", "A waiter",
            "a waiter (a semaphore with N-1 seats) lets at most N-1 philosophers reach for forks at once: one "
                    + "of them always gets both")),
    TRY_BACKOFF(About.fix("try-backoff", "Try, put back, retry",
            "take the left fork, try the right; if it is taken put the left one back, back off and retry: no "
                    + "deadlock, but philosophers backing off alike can livelock"));

    private final About about;

    PhilosophersStrategy(About about) {
        this.about = about;
    }

    @Override
    public About about() {
        return about;
    }
}
