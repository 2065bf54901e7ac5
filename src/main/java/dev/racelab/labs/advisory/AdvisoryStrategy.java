package dev.racelab.labs.advisory;

import dev.racelab.engine.Strategy;

/** Which connection the lock, the work and the unlock run on, and how long the lock lasts. */
enum AdvisoryStrategy implements Strategy {
    SESSION_POOLED(About.broken("session-pooled", "Session lock, any connection",
            "the source article's first try: the lock and the unlock each take whatever pooled connection is free; "
                    + "an unlock on another connection returns false, and the lock stays with a connection no worker "
                    + "owns"), false),
    SESSION_PINNED(About.fix("session-pinned", "Session lock, one connection",
            "lock, work and unlock on one connection kept for the whole span; the unlock always finds its lock "
                    + "(but a worker that dies holding it hands its lock back to the pool with the connection)"), false),
    XACT_LOCK(About.fix("xact-lock", "Transaction lock",
            "the article's fix: BEGIN; pg_advisory_xact_lock; the work; COMMIT. The commit releases the lock, and so "
                    + "does the rollback of a worker that forgets or dies"), true);

    private final About about;
    private final boolean transactionLevel;

    AdvisoryStrategy(About about, boolean transactionLevel) {
        this.about = about;
        this.transactionLevel = transactionLevel;
    }

    @Override
    public About about() {
        return about;
    }

    /** Whether its locks are transaction-level: released when the transaction ends, never unlocked. */
    boolean transactionLevel() {
        return transactionLevel;
    }
}
