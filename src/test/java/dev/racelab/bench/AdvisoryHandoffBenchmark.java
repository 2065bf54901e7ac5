package dev.racelab.bench;

import dev.racelab.backend.PgSchema;
import dev.racelab.backend.Postgres;
import dev.racelab.backend.SqlFile;
import dev.racelab.labs.advisory.AdvisoryLockLab;
import dev.racelab.support.TestServers;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * PostgreSQL lock hand-off latency (release → next holder running), as {@link Handoffs} measures
 * it, for the advisory-lock lab's two blocking locks and, in the same run on the same server, a
 * plain row lock:
 *
 * <ul>
 *   <li>a session advisory lock: {@code pg_advisory_lock(k)} … {@code pg_advisory_unlock(k)};</li>
 *   <li>a transaction advisory lock: {@code BEGIN; pg_advisory_xact_lock(k)} … {@code COMMIT};</li>
 *   <li>a row lock: {@code BEGIN; SELECT … FOR UPDATE} on the invoice's row … {@code COMMIT}.</li>
 * </ul>
 *
 * <p>Each side has a connection of its own, opened before the clock starts; the waiter is blocked
 * in PostgreSQL (granted = false) when the holder releases, so each sample is the server waking
 * a backend, the reply reaching the client, and its thread running. The lab's own statements are
 * used ({@code advisory-lock.sql}), with a key and a row of a run id of the benchmark's own.
 * Rounds alternate the order of the three; the table gives every hand-off of all rounds.
 *
 * <p>Run with {@code scripts/bench advisory [hand-offs] [rounds]}; uses {@code RACELAB_PG_URL}
 * or the embedded PostgreSQL.
 */
public final class AdvisoryHandoffBenchmark {

    private static final SqlFile LAB = SqlFile.load(AdvisoryLockLab.class, "advisory-lock.sql");
    private static final SqlFile BENCH = SqlFile.load(AdvisoryHandoffBenchmark.class, "advisory-bench.sql");
    private static final String INVOICE = "invoice-16741209";
    /** Long enough for the other side to be waiting in PostgreSQL when the holder lets go. */
    private static final long HOLD_NANOS = 2_000_000;
    private static final int WARM_UP = 100;

    /** A way to hold the invoice: how one side takes it and lets it go on its connection. */
    private enum Kind {
        SESSION("session advisory lock (pg_advisory_lock)"),
        TRANSACTION("transaction advisory lock (pg_advisory_xact_lock)"),
        ROW("row lock (SELECT … FOR UPDATE)");

        final String title;

        Kind(String title) {
            this.title = title;
        }
    }

    private AdvisoryHandoffBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int handoffs = args.length > 0 ? Integer.parseInt(args[0]) : 1_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        Postgres postgres = TestServers.postgres();
        String run = "bench-" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt());
        long key = ThreadLocalRandom.current().nextLong();
        System.out.printf("PostgreSQL lock hand-off (release → next holder running): 2 threads, a connection each, "
                        + "%,d hand-offs × %d rounds after %d to warm up, %d cores, %s%n", handoffs, rounds, WARM_UP,
                Runtime.getRuntime().availableProcessors(), postgres.describe());
        Map<Kind, List<long[]>> samples = new LinkedHashMap<>();
        try (Connection admin = postgres.connect("bench-setup")) {
            PgSchema.ensure(admin, "advisory-lock", 1, LAB);
            withRunId(admin, LAB.get("seed"), run);
            try (PreparedStatement ps = admin.prepareStatement(LAB.get("add-resource"))) {
                ps.setString(1, run);
                ps.setString(2, INVOICE);
                ps.setString(3, String.valueOf(key));
                ps.executeUpdate();
            }
            try (Connection a = postgres.connect("bench-1"); Connection b = postgres.connect("bench-2")) {
                for (int round = 0; round < rounds; round++) {
                    Kind[] order = Kind.values();
                    for (int i = 0; i < order.length; i++) {
                        Kind kind = order[round % 2 == 0 ? i : order.length - 1 - i];
                        long[] got = Handoffs.measure(round == 0 ? WARM_UP : 0, handoffs, HOLD_NANOS,
                                side(kind, a, run, key), side(kind, b, run, key));
                        samples.computeIfAbsent(kind, k -> new ArrayList<>()).add(got);
                    }
                }
            } finally {
                withRunId(admin, LAB.get("forget"), run);
            }
        }
        for (Map.Entry<Kind, List<long[]>> entry : samples.entrySet()) {
            Handoffs.report(entry.getKey().title, entry.getValue().stream().flatMapToLong(java.util.Arrays::stream)
                    .toArray());
        }
    }

    /** One side's way to take and let go of the invoice on connection {@code c}. */
    private static Handoffs.Lock side(Kind kind, Connection c, String run, long key) throws SQLException {
        return switch (kind) {
            case SESSION -> {
                c.setAutoCommit(true);
                yield new Handoffs.Lock() {
                    @Override
                    public void acquire() throws SQLException {
                        call(c, LAB.get("lock"), key);
                    }

                    @Override
                    public void release() throws SQLException {
                        if (!call(c, LAB.get("unlock"), key)) {
                            throw new IllegalStateException("the unlock found no lock to release");
                        }
                    }
                };
            }
            case TRANSACTION, ROW -> {
                c.setAutoCommit(false);
                yield new Handoffs.Lock() {
                    @Override
                    public void acquire() throws SQLException {
                        if (kind == Kind.TRANSACTION) {
                            call(c, LAB.get("xact-lock"), key);
                            return;
                        }
                        try (PreparedStatement ps = c.prepareStatement(BENCH.get("lock-row"))) {
                            ps.setString(1, run);
                            ps.setString(2, INVOICE);
                            try (ResultSet rs = ps.executeQuery()) {
                                if (!rs.next()) {
                                    throw new IllegalStateException("the invoice's row is missing");
                                }
                            }
                        }
                    }

                    @Override
                    public void release() throws SQLException {
                        c.commit();
                    }
                };
            }
        };
    }

    /** Runs a one-key lock call; its boolean answer, or true for one that answers nothing. */
    private static boolean call(Connection c, String sql, long key) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setLong(1, key);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return !(rs.getObject(1) instanceof Boolean answer) || answer;
            }
        }
    }

    private static void withRunId(Connection c, String sql, String run) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, run);
            ps.execute();
        }
    }
}
