package dev.racelab.backend;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.WorkerContext;
import org.postgresql.PGConnection;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;

/**
 * The PostgreSQL sessions of one run's workers.
 *
 * <p>Up to {@link #DEDICATED_LIMIT} workers, each worker owns one session, named after it
 * ({@code racelab:client-3}), for the whole run: what {@code pg_locks} shows maps straight to a
 * worker. With more workers (the 1000-client stress test) they share a HikariCP pool of {@link
 * #POOL_SIZE} sessions, each named after its backend pid ({@code racelab:pool-4711}), borrowed for
 * one operation at a time, as an application server would.
 *
 * <p>Every backend pid is remembered. Closing waits until all of them have left {@code
 * pg_stat_activity} and terminates any that linger, so an ended run leaves no session and no lock
 * behind.
 */
public final class PgClients implements AutoCloseable {

    public static final int DEDICATED_LIMIT = 64;
    public static final int POOL_SIZE = 32;

    private static final Executor ABORT_NOW = Runnable::run;
    private static final long LINGER_MILLIS = 3_000;

    private final Postgres postgres;
    private final HikariDataSource pool;
    private final Set<Integer> pids = ConcurrentHashMap.newKeySet();
    /** Which worker uses each backend now: for its whole life (dedicated) or while borrowed (pooled). */
    private final Map<Integer, String> users = new ConcurrentHashMap<>();

    public PgClients(Postgres postgres, String runId, int workers) {
        this.postgres = postgres;
        this.pool = workers > DEDICATED_LIMIT ? pool(postgres, runId) : null;
    }

    private static HikariDataSource pool(Postgres postgres, String runId) {
        HikariConfig config = new HikariConfig();
        config.setPoolName("racelab-pool-" + runId);
        config.setJdbcUrl(postgres.address().jdbcUrl());
        config.setDataSourceProperties(postgres.address().properties());
        config.addDataSourceProperty("ApplicationName", Postgres.APP_PREFIX + "pool");
        config.setConnectionInitSql("SELECT set_config('application_name', '" + Postgres.APP_PREFIX
                + "pool-' || pg_backend_pid(), false)");
        config.setMaximumPoolSize(POOL_SIZE);
        config.setMinimumIdle(POOL_SIZE);
        config.setConnectionTimeout(30_000);
        return new HikariDataSource(config);
    }

    public boolean pooled() {
        return pool != null;
    }

    /** The worker using the session with backend {@code pid} right now, or null. */
    public String userOf(int pid) {
        return users.get(pid);
    }

    /** The backend pids of this run's sessions. */
    public Set<Integer> pids() {
        return Set.copyOf(pids);
    }

    /** Opens the session of worker {@code context} (for a pooled run, its access to the pool). */
    public Session session(WorkerContext context) throws SQLException {
        Session session = new Session(context);
        if (pool == null) {
            session.current = session.open(postgres.connect(context.name()));
        }
        return session;
    }

    /** One worker's way to the server. Used by the worker's thread, except {@link #abort}. */
    public final class Session implements AutoCloseable {

        private final WorkerContext context;
        private volatile Connection current;
        private volatile int pid;

        private Session(WorkerContext context) {
            this.context = context;
        }

        /** The connection to use now: the worker's own, or one borrowed from the pool until {@link #release}. */
        public Connection connection() throws SQLException {
            Connection connection = current;
            if (connection == null) {
                connection = open(pool.getConnection());
                current = connection;
            }
            return connection;
        }

        /** Gives a borrowed connection back to the pool; a worker's own connection stays. */
        public void release() throws SQLException {
            Connection connection = current;
            if (pool != null && connection != null) {
                current = null;
                users.remove(pid, context.name());
                if (!connection.getAutoCommit()) {
                    connection.rollback();
                    connection.setAutoCommit(true);
                }
                connection.close();
            }
        }

        /** Cuts the connection in use, from any thread, so a worker blocked on the server returns. */
        public void abort() {
            Connection connection = current;
            if (connection != null) {
                try {
                    connection.abort(ABORT_NOW);
                } catch (SQLException ignored) {
                    // Already closed.
                }
            }
        }

        private Connection open(Connection connection) throws SQLException {
            pid = connection.unwrap(PGConnection.class).getBackendPID();
            pids.add(pid);
            users.put(pid, context.name());
            context.mark(EventKind.CONNECTED, pool == null ? context.name() : "pool-" + pid, pid);
            return connection;
        }

        @Override
        public void close() throws SQLException {
            Connection connection = current;
            current = null;
            if (connection != null) {
                connection.close();
            }
        }
    }

    /** Closes the pool and makes sure every session of this run is gone from the server. */
    @Override
    public void close() throws SQLException {
        if (pool != null) {
            pool.close();
        }
        if (pids.isEmpty()) {
            return;
        }
        try (Connection admin = postgres.connect("cleanup")) {
            long deadline = System.nanoTime() + LINGER_MILLIS * 1_000_000;
            boolean terminated = false;
            while (true) {
                Integer[] alive = alive(admin);
                if (alive.length == 0) {
                    return;
                }
                if (System.nanoTime() > deadline) {
                    throw new SQLException(alive.length + " sessions of this run would not end");
                }
                if (!terminated && System.nanoTime() > deadline - LINGER_MILLIS * 1_000_000 / 2) {
                    terminate(admin, alive);
                    terminated = true;
                }
                try {
                    Thread.sleep(10);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    private Integer[] alive(Connection admin) throws SQLException {
        Array array = admin.createArrayOf("int4", pids.toArray());
        try (PreparedStatement query = admin.prepareStatement(
                "SELECT pid FROM pg_stat_activity WHERE pid = ANY(?) AND application_name LIKE 'racelab:%'")) {
            query.setArray(1, array);
            try (ResultSet rs = query.executeQuery()) {
                java.util.List<Integer> alive = new java.util.ArrayList<>();
                while (rs.next()) {
                    alive.add(rs.getInt(1));
                }
                return alive.toArray(Integer[]::new);
            }
        }
    }

    private static void terminate(Connection admin, Integer[] pids) throws SQLException {
        try (PreparedStatement kill = admin.prepareStatement(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid = ANY(?) "
                        + "AND application_name LIKE 'racelab:%'")) {
            kill.setArray(1, admin.createArrayOf("int4", pids));
            kill.executeQuery().close();
        }
    }
}
