package dev.racelab.backend;

import com.zaxxer.hikari.HikariDataSource;
import dev.racelab.support.TestServers;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Logger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A pooled run's worker waits up to 30 s for a session, from the first moment of the run: a pool
 * whose sessions were slow to open (so Hikari's housekeeping looked at it while it was filling)
 * once lent with a 2 s timeout for its first 30 s, and a thousand workers sharing 32 sessions on
 * a busy machine failed the run. Against the suite's real PostgreSQL.
 */
@Tag("lab")
class SessionPoolTest {

    @Test
    void aWorkerWaitsLongerThanTheFillForASessionOfASlowFilledPool() throws Exception {
        ExecutorService others = Executors.newCachedThreadPool();
        try (HikariDataSource pool = SessionPool.open("pooltest", 2, new SlowSessions(), Thread::new)) {
            Connection first = pool.getConnection();
            Connection second = pool.getConnection();
            long asked = System.nanoTime();
            Future<Long> waited = others.submit(() -> {
                try (Connection lent = pool.getConnection()) {
                    assertTrue(lent.isValid(2));
                    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - asked);
                }
            });
            // Three seconds, beyond the 2 s that once held for a pool that filled slowly: still waiting.
            assertThrows(TimeoutException.class, () -> waited.get(3, TimeUnit.SECONDS),
                    "the third borrower waits while both sessions are lent");
            first.close();
            long millis = waited.get(10, TimeUnit.SECONDS);
            assertTrue(millis >= 3_000, "lent when the first came back, " + millis + " ms after asking");
            second.close();
            assertEquals(2, pool.getHikariPoolMXBean().getTotalConnections());
        } finally {
            others.shutdownNow();
        }
    }

    @Test
    void aServerSlowToGiveSessionsHoldsUpTheStartForTwoSecondsOrSo() throws Exception {
        AtomicInteger opened = new AtomicInteger();
        DataSource slow = new SlowSessions() {
            @Override
            public Connection getConnection() throws SQLException {
                if (opened.incrementAndGet() > 1) {
                    pause(4_000);
                }
                return super.getConnection();
            }
        };
        long started = System.nanoTime();
        try (HikariDataSource pool = SessionPool.open("pooltest", 4, slow, Thread::new)) {
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            // Two seconds of filling, and the first session Hikari opens itself: never the 30 s a borrow may wait.
            assertTrue(millis >= 1_900 && millis < 10_000, "opened the pool in " + millis + " ms");
            assertEquals(0, pool.getHikariPoolMXBean().getActiveConnections(), "the filler gave back what it held");
            try (Connection lent = pool.getConnection()) {
                assertTrue(lent.isValid(2), "a worker is lent a session after the fill gave up");
            }
        }
    }

    private static void pause(long millis) throws SQLException {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SQLException("interrupted", e);
        }
    }

    /** Real sessions of the suite's server, each 150 ms slow to open, as over a slow link. */
    private static class SlowSessions implements DataSource {

        @Override
        public Connection getConnection() throws SQLException {
            pause(150);
            return TestServers.postgres().connectUnkept("pooltest");
        }

        @Override
        public Connection getConnection(String username, String password) throws SQLException {
            throw new SQLFeatureNotSupportedException();
        }

        @Override
        public PrintWriter getLogWriter() {
            return null;
        }

        @Override
        public void setLogWriter(PrintWriter out) {
        }

        @Override
        public void setLoginTimeout(int seconds) {
        }

        @Override
        public int getLoginTimeout() {
            return 0;
        }

        @Override
        public Logger getParentLogger() throws SQLFeatureNotSupportedException {
            throw new SQLFeatureNotSupportedException();
        }

        @Override
        public <T> T unwrap(Class<T> type) throws SQLException {
            throw new SQLException("not a wrapper");
        }

        @Override
        public boolean isWrapperFor(Class<?> type) {
            return false;
        }
    }
}
