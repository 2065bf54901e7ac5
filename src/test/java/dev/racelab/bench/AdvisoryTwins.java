package dev.racelab.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.racelab.backend.PgAddress;
import dev.racelab.backend.Postgres;
import dev.racelab.backend.SqlFile;
import dev.racelab.labs.advisory.AdvisoryLockLab;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Map;
import java.util.Properties;

/**
 * The advisory-lock lab's raw twins: the source article's {@code withLock} through a HikariCP pool
 * of the lab's size (2), every worker locking the same invoice, with the lab's statements. The key
 * is the article's: the invoice name's 32-bit hash. Both sides try once and give up when refused
 * ({@code patience-ms=0}, the article's own withLock) and do the work in no time ({@code
 * work-ms=0}: the work statement still runs, {@code pg_sleep(0)} and its UPDATE), so what is timed
 * is the client, not the sleeps.
 */
final class AdvisoryTwins {

    private static final SqlFile SQL = SqlFile.load(AdvisoryLockLab.class, "advisory-lock.sql");
    private static final int POOL_SIZE = 2;
    private static final String INVOICE = "invoice-42";
    private static final Map<String, String> SWITCHES = Map.of("acquire", "try", "patience-ms", "0",
            "pool-size", String.valueOf(POOL_SIZE), "work-ms", "0", "reentrancy", "once", "keys", "hash32",
            "resources", "one");

    private AdvisoryTwins() {
    }

    private enum Hold { POOLED, PINNED, TRANSACTION }

    static Map<String, RawTwin> all() {
        return Map.of(
                "advisory-lock/session-pooled", new RawTwin("pg_try_advisory_lock; the work (UPDATE); "
                        + "pg_advisory_unlock, each on whichever pooled connection is free, autocommit",
                        SWITCHES, rounds(Hold.POOLED)),
                "advisory-lock/session-pinned", new RawTwin("pg_try_advisory_lock; the work; pg_advisory_unlock, "
                        + "all on one pooled connection, autocommit", SWITCHES, rounds(Hold.PINNED)),
                "advisory-lock/xact-lock", new RawTwin("BEGIN; pg_try_advisory_xact_lock; the work; COMMIT "
                        + "(ROLLBACK when refused), on one pooled connection", SWITCHES, rounds(Hold.TRANSACTION)));
    }

    private static RawTwin.Rounds rounds(Hold hold) {
        return (postgres, run, workers, ops) -> new Invoices(postgres, run, hold);
    }

    /** One round: the run's invoice, its key, and the pool every worker borrows from. */
    private static final class Invoices extends RawTwin.Seeded {

        private final Hold hold;
        private final long key;
        private final HikariDataSource pool;

        Invoices(Postgres postgres, String run, Hold hold) throws SQLException {
            super(postgres, run, SQL);
            this.hold = hold;
            this.key = (run + "/" + INVOICE).hashCode();
            try (PreparedStatement ps = admin.prepareStatement(SQL.get("add-resource"))) {
                ps.setString(1, run);
                ps.setString(2, INVOICE);
                ps.setString(3, Long.toString(key));
                ps.executeUpdate();
            }
            this.pool = pool(postgres.address(), run);
        }

        private static HikariDataSource pool(PgAddress address, String run) {
            HikariConfig config = new HikariConfig();
            config.setPoolName("raw-pool-" + run);
            config.setJdbcUrl(address.jdbcUrl());
            Properties properties = address.properties();
            properties.setProperty("ApplicationName", Postgres.APP_PREFIX + "raw-pool");
            config.setDataSourceProperties(properties);
            config.setMaximumPoolSize(POOL_SIZE);
            config.setMinimumIdle(POOL_SIZE);
            config.setConnectionTimeout(30_000);
            return new HikariDataSource(config);
        }

        @Override
        public RawTwin.Worker worker(int index) {
            String name = "worker-" + (index + 1);
            return n -> {
                switch (hold) {
                    case POOLED -> pooled(name);
                    case PINNED -> pinned(name);
                    case TRANSACTION -> transaction(name);
                }
            };
        }

        private void pooled(String name) throws SQLException {
            try (Connection c = pool.getConnection()) {
                if (!call(c, "try-lock")) {
                    return;
                }
            }
            try (Connection c = pool.getConnection()) {
                work(c, name);
            }
            try (Connection c = pool.getConnection()) {
                call(c, "unlock");
            }
        }

        private void pinned(String name) throws SQLException {
            try (Connection c = pool.getConnection()) {
                if (call(c, "try-lock")) {
                    try {
                        work(c, name);
                    } finally {
                        call(c, "unlock");
                    }
                }
            }
        }

        private void transaction(String name) throws SQLException {
            try (Connection c = pool.getConnection()) {
                c.setAutoCommit(false);
                try {
                    if (call(c, "try-xact-lock")) {
                        work(c, name);
                        c.commit();
                    } else {
                        c.rollback();
                    }
                } finally {
                    c.setAutoCommit(true);
                }
            }
        }

        /** A lock call on the run's key: what it answers. */
        private boolean call(Connection c, String statement) throws SQLException {
            try (PreparedStatement ps = c.prepareStatement(SQL.get(statement))) {
                ps.setLong(1, key);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getBoolean(1);
                }
            }
        }

        private void work(Connection c, String name) throws SQLException {
            try (PreparedStatement ps = c.prepareStatement(SQL.get("work"))) {
                ps.setInt(1, 0);
                ps.setString(2, name);
                ps.setString(3, run);
                ps.setString(4, INVOICE);
                ps.executeUpdate();
            }
        }

        /** Closes the pool (which ends every session it holds, and the locks left in them), then forgets the rows. */
        @Override
        public void close() throws SQLException {
            try {
                pool.close();
            } finally {
                super.close();
            }
        }
    }
}
