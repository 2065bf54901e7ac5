package dev.racelab.labs.leasefencing;

import dev.racelab.engine.Strategy;

/** What stands between a client that believes it holds the lock and the record it writes. */
enum LeaseFencingStrategy implements Strategy {
    LEASE_ONLY(About.broken("lease-only", "Lease only",
            "the lock's lease is the only guard: PostgreSQL takes any write, so a client that paused past "
                    + "its lease writes over the next holder's work")),
    LEASE_CHECK_OWNER(About.broken("lease-check-owner", "Lease, check owner",
            "ask Redis whether the lock is still mine just before writing: a pause between the check "
                    + "and the write lets the stale write through all the same")),
    FENCED(About.fix("fenced", "Fenced write",
            "each lease carries a fencing token; PostgreSQL's write is one conditional UPDATE that "
                    + "rejects a token lower than the highest it has seen"));

    private final About about;

    LeaseFencingStrategy(About about) {
        this.about = about;
    }

    @Override
    public About about() {
        return about;
    }
}
