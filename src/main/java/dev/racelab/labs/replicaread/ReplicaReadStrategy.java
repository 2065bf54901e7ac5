package dev.racelab.labs.replicaread;

import dev.racelab.engine.Strategy;

/** Where a client reads its own write back, and what its commit waits for first. */
enum ReplicaReadStrategy implements Strategy {
    READ_STANDBY(About.broken("read-standby", "Read the standby",
            "commit on the primary, read on the standby at once: the standby may not have replayed the commit yet"),
            "local", Reads.STANDBY),
    SYNC_STANDBY(About.broken("sync-standby", "Synchronous standby",
            "the commit waits until the standby has the WAL on disk (synchronous_commit = on), not until it has "
                    + "replayed it: a read right after can still miss the write"),
            "on", Reads.STANDBY),
    REMOTE_APPLY(About.fix("remote-apply", "Remote apply",
            "the commit waits until the standby has replayed it (synchronous_commit = remote_apply): every commit "
                    + "pays a round trip to the standby, and stops while the standby is away"),
            "remote_apply", Reads.STANDBY),
    WAIT_FOR_LSN(About.fix("wait-for-lsn", "Wait for the LSN",
            "the writer notes its commit's WAL position; the reader waits until the standby has replayed that far, "
                    + "then reads: only this client's reads wait"),
            "local", Reads.STANDBY_AFTER_LSN),
    READ_PRIMARY(About.fix("read-primary", "Read the primary",
            "read your own writes where you wrote them: the standby serves only reads that may be stale"),
            "local", Reads.PRIMARY);

    /** Where the client reads. */
    enum Reads { STANDBY, STANDBY_AFTER_LSN, PRIMARY }

    private final About about;
    private final String commitLevel;
    private final Reads reads;

    ReplicaReadStrategy(About about, String commitLevel, Reads reads) {
        this.about = about;
        this.commitLevel = commitLevel;
        this.reads = reads;
    }

    @Override
    public About about() {
        return about;
    }

    /** The session's {@code synchronous_commit}: what a commit waits for before it returns. */
    String commitLevel() {
        return commitLevel;
    }

    Reads reads() {
        return reads;
    }
}
