package dev.racelab.bench;

import dev.racelab.backend.Postgres;
import dev.racelab.backend.SqlFile;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A lab strategy's raw twin: the program a developer would write to do what the strategy's workers
 * do, with a plain JDBC connection (or pool, or Redis connection) and the lab's own statements,
 * and nothing RaceLab adds: no events, no gates, no lanes. {@link OverheadBenchmark} times it
 * beside the lab's run.
 *
 * @param sends    what the plain program sends per operation, in words, for the benchmark's legend
 * @param switches the lab's switches both sides run with, by name (as text, as the command line takes them)
 * @param rounds   how a round of it is set up: rows of its own, its workers
 */
record RawTwin(String sends, Map<String, String> switches, Rounds rounds) {

    RawTwin {
        switches = Map.copyOf(switches);
    }

    /** Sets up one round of {@code workers} workers doing {@code ops} operations each on rows of run {@code run}. */
    @FunctionalInterface
    interface Rounds {
        Round open(Postgres postgres, String run, int workers, int ops) throws Exception;
    }

    /** One round's set-up: made before the clock starts, closed (its rows forgotten) after it stops. */
    interface Round extends AutoCloseable {
        /** Worker {@code index}, with its connections open: made before the clock starts. */
        Worker worker(int index) throws Exception;
    }

    /** One raw worker: what one operation sends; closing it (in the time, on its own thread) closes its connections. */
    interface Worker extends AutoCloseable {
        void operation(int n) throws Exception;

        @Override
        default void close() throws Exception {
        }
    }

    /**
     * One timed round of {@code twin}; its ops/s, timed like a run's workers: set-up and
     * connections before the clock starts, each thread closing its own before it ends. Threads are
     * named {@code raw-1}, {@code raw-2}, … (what {@code SentStatements} counts by).
     */
    static double time(Postgres postgres, RawTwin twin, int workers, int ops) throws Exception {
        String run = "raw-" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt());
        try (Round round = twin.rounds().open(postgres, run, workers, ops)) {
            List<Worker> made = new ArrayList<>();
            try {
                for (int i = 0; i < workers; i++) {
                    made.add(round.worker(i));
                }
            } catch (Exception | Error e) {
                for (Worker worker : made) {
                    worker.close();
                }
                throw e;
            }
            AtomicReference<Throwable> failure = new AtomicReference<>();
            List<Thread> threads = new ArrayList<>();
            long start = System.nanoTime();
            for (int i = 0; i < workers; i++) {
                Worker worker = made.get(i);
                Thread thread = new Thread(() -> {
                    try (worker) {
                        for (int n = 0; n < ops; n++) {
                            worker.operation(n);
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }, "raw-" + (i + 1));
                thread.setDaemon(true);
                threads.add(thread);
                thread.start();
            }
            // A worker that fails stops the round: the others, which may wait for what it would
            // have done (a consumer for the jobs it claimed), are interrupted, not waited for.
            for (Thread thread : threads) {
                while (thread.isAlive()) {
                    thread.join(50);
                    if (failure.get() != null) {
                        threads.forEach(Thread::interrupt);
                        throw new IllegalStateException("the raw client failed", failure.get());
                    }
                }
            }
            long elapsed = System.nanoTime() - start;
            if (failure.get() != null) {
                throw new IllegalStateException("the raw client failed", failure.get());
            }
            return (double) workers * ops * 1e9 / elapsed;
        }
    }

    /**
     * A round on rows of its own in the lab's tables, seeded and forgotten with the lab's own
     * statements ({@code seed} and {@code forget}, each taking the run's id) on a set-up connection.
     */
    abstract static class Seeded implements Round {

        final Postgres postgres;
        final String run;
        final SqlFile sql;
        final Connection admin;

        Seeded(Postgres postgres, String run, SqlFile sql) throws SQLException {
            this.postgres = postgres;
            this.run = run;
            this.sql = sql;
            this.admin = postgres.connect("raw-setup");
            try {
                withRunId(admin, sql.get("forget"), run);
                withRunId(admin, sql.get("seed"), run);
            } catch (SQLException e) {
                admin.close();
                throw e;
            }
        }

        /** Worker {@code index}'s own session, at {@code isolation} ({@code TRANSACTION_NONE}: the server's default, left alone). */
        Connection connect(int index, int isolation) throws SQLException {
            Connection c = postgres.connect("raw-" + (index + 1));
            if (isolation != Connection.TRANSACTION_NONE) {
                c.setTransactionIsolation(isolation);
            }
            return c;
        }

        @Override
        public void close() throws SQLException {
            try (admin) {
                withRunId(admin, sql.get("forget"), run);
            }
        }
    }

    /** Makes worker {@code index}'s script (of {@code workers}) on its connection {@code c}, for rows of run {@code run}. */
    @FunctionalInterface
    interface Scripts {
        Worker open(Connection c, String run, int index, int workers) throws SQLException;
    }

    /**
     * The common shape: each worker on a session of its own at {@code isolation}, the lab's rows
     * seeded as the lab seeds them; {@code scripts} says what an operation sends.
     */
    static Rounds ownSessions(SqlFile sql, int isolation, Scripts scripts) {
        return (postgres, run, workers, ops) -> new Seeded(postgres, run, sql) {
            @Override
            public Worker worker(int index) throws SQLException {
                Connection c = connect(index, isolation);
                try {
                    Worker script = scripts.open(c, run, index, workers);
                    return new Worker() {
                        @Override
                        public void operation(int n) throws Exception {
                            script.operation(n);
                        }

                        @Override
                        public void close() throws SQLException {
                            c.close();
                        }
                    };
                } catch (SQLException | RuntimeException e) {
                    c.close();
                    throw e;
                }
            }
        };
    }

    static void withRunId(Connection c, String sql, String run) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, run);
            ps.execute();
        }
    }
}
