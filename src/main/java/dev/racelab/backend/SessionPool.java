package dev.racelab.backend;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadFactory;

/**
 * The HikariCP pool behind {@link PgSessions}' pooled mode, as an application server keeps one:
 * a fixed number of sessions, lent to whoever asks, a worker waiting up to 30 s for one.
 */
final class SessionPool {

    /** How long a worker waits for a pooled session. */
    private static final long BORROW_MILLIS = 30_000;
    /** How long filling a new pool may hold up its run's start. */
    private static final long FILL_MILLIS = 2_000;

    private SessionPool() {
    }

    /** Opens the pool of {@code size} sessions from {@code sessions}, its threads from {@code threads}, filled. */
    static HikariDataSource open(String runId, int size, DataSource sessions, ThreadFactory threads) {
        HikariConfig config = new HikariConfig();
        config.setPoolName("racelab-pool-" + runId);
        config.setDataSource(sessions);
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(size);
        config.setConnectionTimeout(BORROW_MILLIS);
        config.setThreadFactory(threads);
        HikariDataSource pool = new HikariDataSource(config);
        try {
            filled(pool, size, threads);
        } catch (RuntimeException | Error e) {
            pool.close();
            throw e;
        }
        return pool;
    }

    /**
     * Fills the pool now: Hikari opens the sessions past its first on a thread of its own, and only
     * a while after it starts, unless someone waits for one. So each is asked for and given back,
     * so that no worker's first borrow waits for a session being opened, and which session a worker
     * is lent depends on who gave back which before, not on how fast they opened. A server slow to
     * give sessions holds up the run's start for {@link #FILL_MILLIS} at most: then the filling
     * thread is interrupted, gives back what it holds, and a session not yet opened is left to the
     * worker that asks for it, which then says why if it cannot be had.
     *
     * <p>The pool's own borrow timeout is never lowered for this: Hikari copies a changed timeout
     * into a running pool only at its next housekeeping, up to 30 s later, so the workers of a run
     * would wait 2 s, not 30, for a session while the pool is busy.
     */
    private static void filled(HikariDataSource pool, int size, ThreadFactory threads) {
        Thread filler = threads.newThread(() -> borrowAndGiveBack(pool, size));
        filler.start();
        boolean interrupted = false;
        try {
            filler.join(FILL_MILLIS);
        } catch (InterruptedException e) {
            interrupted = true;
        }
        filler.interrupt();
        while (filler.isAlive()) {
            try {
                filler.join();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private static void borrowAndGiveBack(HikariDataSource pool, int size) {
        List<Connection> held = new ArrayList<>(size);
        try {
            for (int i = 0; i < size; i++) {
                held.add(pool.getConnection());
            }
        } catch (SQLException e) {
            // Interrupted, or the server refused: said by the first worker that asks.
        } finally {
            for (Connection connection : held) {
                try {
                    connection.close();
                } catch (SQLException e) {
                    // Given back broken: Hikari drops it and opens another.
                }
            }
        }
    }
}
