package dev.racelab.labs.replicaread;

import dev.racelab.backend.relay.StreamRelay;
import dev.racelab.engine.RunThreads;

import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Optional;

/**
 * The run's faults on replication: the relay held, or the standby's replay paused, for a while
 * from a client's commit. Stalls that overlap add up: the stream flows again, or replay goes on,
 * when the last one ends. Each ends on a thread of the run's own ({@code stall-…}); {@link #close}
 * ends every stall at once, so no run leaves the stream held or the replay paused for the next.
 */
final class Stalls implements AutoCloseable {

    /** Said when a fault is armed on a pair the user named: RaceLab stalls only its own servers. */
    static final String NOT_OURS = "the replication faults (stream-stalls, replay-pauses, standby-promoted) hold, "
            + "pause or end a standby's replication, which RaceLab does only to its own primary and standby: on servers "
            + "you name, clear them (--delay replay-pauses=0@client-1 for the default)";

    /** Whether the pair is RaceLab's own, whose replication it may hold and pause. */
    private final boolean ours;
    /** The relay on the stream: RaceLab's own pair has one, a pair the user named none. */
    private final Optional<StreamRelay> relay;
    private final Connection standbyAdmin;
    private final RunThreads threads;
    private final long stallMillis;
    private int streamHolds;
    /** Set once the standby was promoted: it follows the primary no more. */
    private volatile boolean promoted;
    private int replayPauses;
    private boolean closed;

    Stalls(boolean ours, Optional<StreamRelay> relay, Connection standbyAdmin, RunThreads threads, long stallMillis) {
        this.ours = ours;
        this.relay = relay;
        this.standbyAdmin = standbyAdmin;
        this.threads = threads;
        this.stallMillis = stallMillis;
    }

    long millis() {
        return stallMillis;
    }

    /** Holds the replication stream in the relay for the stall's length. */
    synchronized void holdStream(String client) {
        if (closed) {
            return;
        }
        if (!ours || relay.isEmpty()) {
            throw new IllegalStateException(NOT_OURS);
        }
        streamHolds++;
        relay.get().hold();
        threads.start("stall-stream-" + client, () -> after(this::endStreamHold));
    }

    /** Pauses the standby's replay for the stall's length. */
    synchronized void pauseReplay(String client) throws SQLException {
        if (!ours) {
            throw new IllegalStateException(NOT_OURS);
        }
        if (closed) {
            return;
        }
        if (replayPauses++ == 0) {
            run("SELECT pg_wal_replay_pause()");
        }
        threads.start("stall-replay-" + client, () -> after(this::endReplayPause));
    }

    /** Promotes the standby (pg_promote, waiting for it): a second primary. Once; later calls do nothing. */
    synchronized boolean promote() throws SQLException {
        if (!ours) {
            throw new IllegalStateException(NOT_OURS);
        }
        if (promoted || closed) {
            return false;
        }
        if (replayPauses > 0) {
            // A paused replay would hold the promotion back; it ends with it.
            replayPauses = 0;
            resume();
        }
        run("SELECT pg_promote(true, 10)");
        promoted = true;
        return true;
    }

    boolean promoted() {
        return promoted;
    }

    private void after(Runnable end) {
        try {
            Thread.sleep(stallMillis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        end.run();
    }

    private synchronized void endStreamHold() {
        if (!closed && --streamHolds == 0) {
            release();
        }
    }

    private synchronized void endReplayPause() {
        if (!closed && !promoted && replayPauses > 0 && --replayPauses == 0) {
            resume();
        }
    }

    private void release() {
        try {
            if (relay.isPresent()) {
                relay.get().release();
            }
        } catch (IOException e) {
            throw new IllegalStateException("the relay could not pass on what it held: " + e.getMessage(), e);
        }
    }

    private void resume() {
        try {
            run("SELECT pg_wal_replay_resume()");
        } catch (SQLException e) {
            throw new IllegalStateException("the standby's replay could not be resumed: " + e.getMessage(), e);
        }
    }

    private void run(String sql) throws SQLException {
        synchronized (standbyAdmin) {
            try (Statement s = standbyAdmin.createStatement()) {
                s.execute(sql);
            }
        }
    }

    /**
     * Before the run: lets the stream flow and the replay go on, if a run stopped by force left
     * either stalled.
     */
    synchronized void clearLeftovers() throws SQLException {
        if (!ours) {
            return;
        }
        if (relay.isPresent() && relay.get().holding()) {
            release();
        }
        try (Statement s = standbyAdmin.createStatement();
             java.sql.ResultSet rs = s.executeQuery("SELECT pg_is_in_recovery() AND pg_is_wal_replay_paused()")) {
            rs.next();
            if (rs.getBoolean(1)) {
                resume();
            }
        }
    }

    /** Ends every stall now: the stream flows and replay goes on, for the next run. */
    @Override
    public synchronized void close() {
        closed = true;
        if (streamHolds > 0 || relay.isPresent() && relay.get().holding()) {
            streamHolds = 0;
            release();
        }
        if (replayPauses > 0 && !promoted) {
            replayPauses = 0;
            resume();
        }
    }
}
