package dev.racelab.labs.replicaread;

import dev.racelab.backend.PgSessions;
import dev.racelab.engine.ActorState;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.LabWorker;
import dev.racelab.engine.WorkerContext;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import static dev.racelab.labs.replicaread.ReplicaReadScenario.SQL;

/**
 * One client: each operation commits a new version of its own row on the primary, then reads the
 * row back where its strategy says. A stale read is counted, and the client looks again until it
 * sees its write, so the verdict can say how long the standby took to catch up.
 */
final class ReplicaClient implements LabWorker {

    /** How a stale read's note begins; its value: how many µs it stayed stale (the view reads it). */
    static final String STALE_FOR = "stale read: the standby showed the write ";
    /** How often a waiting client asks the standby again. */
    private static final long LOOK_AGAIN_NANOS = 1_000_000;
    /** How long a client waits for the standby to replay its commit before the run fails. */
    private static final long REPLAY_WITHIN_NANOS = 30_000_000_000L;

    private final ReplicaReadScenario run;
    private final WorkerContext context;
    private final PgSessions.Session primary;
    private final Connection standby;
    private final ReplicaReadStrategy strategy;
    private final String runId;
    private final Stalls stalls;
    private final int row;
    private boolean levelSet;

    ReplicaClient(ReplicaReadScenario run, WorkerContext context, PgSessions.Session primary, Connection standby,
                  ReplicaReadStrategy strategy, String runId, Stalls stalls) {
        this.run = run;
        this.context = context;
        this.primary = primary;
        this.standby = standby;
        this.strategy = strategy;
        this.runId = runId;
        this.stalls = stalls;
        this.row = context.index() + 1;
    }

    @Override
    public void operation(int n) throws Exception {
        context.gate(ReplicaReadLab.BEFORE_COMMIT);
        if (context.fault(ReplicaReadLab.STREAM_STALLS)) {
            stalls.holdStream(context.name());
            context.mark(EventKind.FAULT, "the relay holds the replication stream for " + stalls.millis() + " ms",
                    stalls.millis());
        }
        if (context.fault(ReplicaReadLab.STANDBY_PROMOTED) && stalls.promote()) {
            context.mark(EventKind.FAULT, "the standby was promoted: it follows the primary no more", 0);
        }
        if (context.fault(ReplicaReadLab.REPLAY_PAUSES)) {
            stalls.pauseReplay(context.name());
            context.mark(EventKind.FAULT, "the standby pauses its replay for " + stalls.millis() + " ms",
                    stalls.millis());
        }
        long version;
        long committedAt;
        try (PgSessions.Lease lease = primary.borrow()) {
            Connection c = lease.connection();
            setCommitLevel(c);
            context.state(strategy.commitLevel().equals("local") ? ActorState.RUNNING : ActorState.WAITING,
                    strategy.commitLevel().equals("local") ? "commits on the primary"
                            : "commits, waiting for the standby (" + strategy.commitLevel() + ")");
            long start = System.nanoTime();
            version = write(c);
            long micros = (System.nanoTime() - start) / 1000;
            run.commits.increment();
            run.commitMicros.add(micros);
            run.longestCommitMicros.accumulate(micros);
            // Only the reader that waits for the standby needs the commit's position, and pays the
            // round trip for it: the others read right after the commit, as a plain client would.
            committedAt = strategy.reads() == ReplicaReadStrategy.Reads.STANDBY_AFTER_LSN ? Lsn.parse(flushed(c)) : 0;
        }
        context.mark(EventKind.WRITE, "version", version);
        context.state(ActorState.RUNNING, "committed version " + version);
        context.gate(ReplicaReadLab.AFTER_COMMIT);
        read(version, committedAt);
    }

    private void setCommitLevel(Connection c) throws SQLException {
        if (!levelSet) {
            try (Statement s = c.createStatement()) {
                s.execute("SET synchronous_commit = " + strategy.commitLevel());
            }
            levelSet = true;
        }
    }

    private long write(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(SQL.get("write"))) {
            ps.setString(1, runId);
            ps.setInt(2, row);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    private static String flushed(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(SQL.get("flushed"))) {
            rs.next();
            return rs.getString(1);
        }
    }

    private void read(long version, long committedAt) throws Exception {
        long seen;
        switch (strategy.reads()) {
            case PRIMARY -> {
                context.state(ActorState.RUNNING, "reads on the primary");
                try (PgSessions.Lease lease = primary.borrow()) {
                    seen = readRow(lease.connection());
                }
            }
            case STANDBY_AFTER_LSN -> {
                context.state(ActorState.WAITING, "waits for the standby to replay " + Lsn.text(committedAt));
                awaitReplayed(committedAt);
                context.state(ActorState.RUNNING, "reads on the standby");
                seen = readStandby();
            }
            default -> {
                context.state(ActorState.RUNNING, "reads on the standby");
                seen = readStandby();
            }
        }
        run.reads.increment();
        context.mark(EventKind.READ, seen < version ? "version on the standby (stale)" : "version", seen);
        if (seen < version) {
            stale(version, seen);
        }
        context.state(ActorState.RUNNING);
    }

    /** A stale read: counted, then the client looks again until the standby shows its write. */
    private void stale(long version, long seen) throws Exception {
        long readAt = System.nanoTime();
        run.staleReads.increment();
        context.violation(ReplicaReadScenario.STALE, 1);
        context.state(ActorState.WAITING, "looks again until the standby shows version " + version);
        long deadline = readAt + REPLAY_WITHIN_NANOS;
        while (readStandby() < version) {
            if (stalls.promoted()) {
                // A promoted standby will never show the write: there is nothing to wait for.
                run.firstStale.compareAndSet(null, context.name() + " committed version " + version + " and read "
                        + "version " + seen + " on the standby, which was promoted and follows the primary no more");
                context.mark(EventKind.NOTE, "stale for good: the standby was promoted", 0);
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(context.name() + " never saw version " + version + " on the standby "
                        + "within " + REPLAY_WITHIN_NANOS / 1_000_000_000L + " s");
            }
            context.backOff(LOOK_AGAIN_NANOS);
        }
        long micros = (System.nanoTime() - readAt) / 1000;
        run.longestCatchUpMicros.accumulate(micros);
        String later = ReplicaReadScenario.millis(micros) + " later";
        run.firstStale.compareAndSet(null, context.name() + " committed version " + version + " and read version "
                + seen + " on the standby; it saw its write " + later);
        context.mark(EventKind.NOTE, STALE_FOR + later, micros);
    }

    private void awaitReplayed(long position) throws Exception {
        try {
            awaitReplayedOnStandby(position);
        } catch (SQLException e) {
            throw new StandbyWatch.Lost(e);
        }
    }

    private void awaitReplayedOnStandby(long position) throws Exception {
        long deadline = System.nanoTime() + REPLAY_WITHIN_NANOS;
        try (PreparedStatement ps = standby.prepareStatement(SQL.get("replayed-past"))) {
            ps.setString(1, Lsn.text(position));
            while (true) {
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    if (rs.getBoolean(1) || stalls.promoted()) {
                        // Replayed; or promoted, when it never will be: the reader stops waiting and reads.
                        return;
                    }
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("the standby did not replay " + Lsn.text(position) + " within "
                            + REPLAY_WITHIN_NANOS / 1_000_000_000L + " s");
                }
                context.backOff(LOOK_AGAIN_NANOS);
            }
        }
    }

    /** The row's version, read in one statement as a plain client reads it. */
    private long readRow(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(SQL.get("read"))) {
            ps.setString(1, runId);
            ps.setInt(2, row);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    private long readStandby() throws SQLException {
        try {
            return readRow(standby);
        } catch (SQLException e) {
            throw new StandbyWatch.Lost(e);
        }
    }

    @Override
    public void abort() {
        primary.abort();
        try {
            standby.abort(Runnable::run);
        } catch (SQLException ignored) {
            // Cut already.
        }
    }

    @Override
    public void close() throws SQLException {
        try {
            standby.close();
        } finally {
            primary.close();
        }
    }
}
