package dev.racelab.labs.jobqueue;

import dev.racelab.engine.Strategy;

/** How a consumer takes jobs off the queue. */
enum JobQueueStrategy implements Strategy {
    SELECT_THEN_UPDATE(About.broken("select-then-update", "Select, then update",
            "select the oldest unsent jobs, send them, then mark them sent: two consumers that select before "
                    + "either marks send the same jobs"), false),
    REQUEST_TOKEN(About.fix("request-token", "Request token",
            "the source article: put my token on the oldest jobs where request_token IS NULL, commit, then select "
                    + "my jobs by token; safe, but a consumer often gets fewer jobs than it asked for"), true),
    SKIP_LOCKED(About.fix("skip-locked", "FOR UPDATE SKIP LOCKED",
            "one statement locks the oldest jobs nobody else has locked, claims them and returns them: "
                    + "no waiting, full batches"), true);

    private final About about;
    private final boolean claims;

    JobQueueStrategy(About about, boolean claims) {
        this.about = about;
        this.claims = claims;
    }

    @Override
    public About about() {
        return about;
    }

    /**
     * Whether the strategy claims jobs in the table (a token on each row, kept until it is marked
     * sent). Only a claim can be left behind by a crash, run out its lease, or be taken over; the
     * lease and the conditional mark are about claims.
     */
    boolean claims() {
        return claims;
    }
}
