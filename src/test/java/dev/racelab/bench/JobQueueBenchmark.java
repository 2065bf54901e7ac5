package dev.racelab.bench;

import dev.racelab.backend.PgSchema;
import dev.racelab.backend.Postgres;
import dev.racelab.backend.SqlFile;
import dev.racelab.labs.jobqueue.JobQueueLab;
import dev.racelab.support.TestServers;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * How fast each way of claiming drains a job queue: jobs sent per second with 1, 8 and 32
 * consumers, for the job-queue lab's three strategies and, as the baseline, a blocking claim
 * ({@code SELECT … FOR UPDATE}, the lock kept while the batch is sent, as the first comment under
 * the source article proposes), all in the same run on the same server.
 *
 * <p>Each measurement fills a fresh queue at once (rows of a run id of its own, in the lab's
 * tables) and times its consumers from a common start until the last one found nothing left,
 * each consumer on a connection of its own opened before the clock starts. A consumer loops as
 * the lab's consumers do, with the lab's own statements: take a batch, send each email (a sleep
 * of the send time: the mail server's share), mark the batch sent and write its outbox rows. The
 * rate is jobs sent (at least once) per second; select-then-update sends some twice, which the
 * emails/job column shows. Rounds alternate the order of the strategies; the table gives the
 * median of the rounds.
 *
 * <p>Run with {@code scripts/bench jobqueue [rounds] [send-ms] [batch]}; uses {@code
 * RACELAB_PG_URL} or the embedded PostgreSQL. The goal: request-token and skip-locked at least
 * five times the blocking claim's rate with 32 consumers.
 */
public final class JobQueueBenchmark {

    private static final SqlFile LAB = SqlFile.load(JobQueueLab.class, "jobqueue.sql");
    private static final SqlFile BENCH = SqlFile.load(JobQueueBenchmark.class, "jobqueue-bench.sql");
    private static final int[] CONSUMERS = {1, 8, 32};
    private static final double GOAL = 5.0;

    /** How a consumer takes its batches. */
    private enum Claim {
        BLOCKING("for-update (baseline)"),
        SELECT_THEN_UPDATE("select-then-update"),
        REQUEST_TOKEN("request-token"),
        SKIP_LOCKED("skip-locked");

        final String title;

        Claim(String title) {
            this.title = title;
        }
    }

    /** What one measurement found. */
    private record Drain(double jobsPerSecond, double emailsPerJob, long shortBatches) {
    }

    private JobQueueBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 3;
        int sendMillis = args.length > 1 ? Integer.parseInt(args[1]) : 2;
        int batch = args.length > 2 ? Integer.parseInt(args[2]) : 4;
        Postgres postgres = TestServers.postgres();
        try (Connection admin = postgres.connect("bench-setup")) {
            PgSchema.ensure(admin, "job-queue", 1, LAB);
        }
        System.out.printf("job queue: jobs sent per second draining a full queue; batches of %d, %d ms to send an "
                        + "email, the median of %d rounds; %d cores; %s%n", batch, sendMillis, rounds,
                Runtime.getRuntime().availableProcessors(), postgres.describe());
        System.out.printf("%9s  %-22s %6s %10s %11s %13s %12s%n", "consumers", "claim", "jobs", "jobs/s",
                "emails/job", "short batches", "× for-update");
        double[][] medians = new double[CONSUMERS.length][Claim.values().length];
        for (int c = 0; c < CONSUMERS.length; c++) {
            int consumers = CONSUMERS[c];
            int jobs = Math.max(200, 50 * consumers);
            Drain[][] drains = new Drain[Claim.values().length][rounds];
            for (int round = 0; round < rounds; round++) {
                Claim[] order = Claim.values();
                for (int i = 0; i < order.length; i++) {
                    Claim claim = order[round % 2 == 0 ? i : order.length - 1 - i];
                    settle(postgres);
                    drains[claim.ordinal()][round] = drain(postgres, claim, consumers, jobs, batch, sendMillis);
                }
            }
            for (Claim claim : Claim.values()) {
                Drain[] runs = drains[claim.ordinal()];
                double rate = median(Arrays.stream(runs).mapToDouble(Drain::jobsPerSecond).toArray());
                medians[c][claim.ordinal()] = rate;
                double emails = median(Arrays.stream(runs).mapToDouble(Drain::emailsPerJob).toArray());
                double shortBatches = median(Arrays.stream(runs).mapToDouble(Drain::shortBatches).toArray());
                System.out.printf("%9d  %-22s %6d %,10.0f %11.2f %13.0f %12.1f%n", consumers, claim.title, jobs, rate,
                        emails, shortBatches, rate / medians[c][Claim.BLOCKING.ordinal()]);
            }
        }
        int at32 = CONSUMERS.length - 1;
        double blocking = medians[at32][Claim.BLOCKING.ordinal()];
        for (Claim claim : List.of(Claim.REQUEST_TOKEN, Claim.SKIP_LOCKED)) {
            double ratio = medians[at32][claim.ordinal()] / blocking;
            System.out.printf("goal at 32 consumers: %s ≥ %.0f× for-update: %.1f× — %s%n", claim.title, GOAL, ratio,
                    ratio >= GOAL ? "met" : "MISSED");
        }
    }

    /**
     * One measurement: a queue of {@code jobs} jobs drained by {@code consumers} consumers taking
     * them the {@code claim} way; forgotten afterwards.
     */
    private static Drain drain(Postgres postgres, Claim claim, int consumers, int jobs, int batch, int sendMillis)
            throws Exception {
        String run = "bench-" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt());
        try (Connection admin = postgres.connect("bench-setup")) {
            withRunId(admin, LAB.get("seed"), run);
            try (PreparedStatement fill = admin.prepareStatement(BENCH.get("fill"))) {
                fill.setString(1, run);
                fill.setInt(2, jobs);
                fill.executeUpdate();
            }
            try (Statement s = admin.createStatement()) {
                s.execute("ANALYZE racelab.email_jobs");
            }
            try {
                List<Connection> connections = new ArrayList<>();
                try {
                    for (int i = 0; i < consumers; i++) {
                        connections.add(postgres.connect("bench-consumer-" + (i + 1)));
                    }
                    Consumers crew = new Consumers(claim, run, batch, sendMillis);
                    double seconds = crew.drain(connections);
                    try (PreparedStatement ps = admin.prepareStatement(BENCH.get("outbox"))) {
                        ps.setString(1, run);
                        try (ResultSet rs = ps.executeQuery()) {
                            rs.next();
                            long emails = rs.getLong(1);
                            long sent = rs.getLong(2);
                            if (sent != jobs) {
                                throw new IllegalStateException(claim.title + " sent " + sent + " of " + jobs + " jobs");
                            }
                            return new Drain(sent / seconds, (double) emails / sent, crew.shortBatches.sum());
                        }
                    }
                } finally {
                    for (Connection c : connections) {
                        c.close();
                    }
                }
            } finally {
                withRunId(admin, LAB.get("forget"), run);
            }
        }
    }

    /** The consumers of one measurement, each on its own thread and connection. */
    private static final class Consumers {
        private final Claim claim;
        private final String run;
        private final int batch;
        private final int sendMillis;
        private final AtomicLong tokens = new AtomicLong();
        private final LongAdder shortBatches = new LongAdder();
        private final AtomicReference<Throwable> failure = new AtomicReference<>();

        Consumers(Claim claim, String run, int batch, int sendMillis) {
            this.claim = claim;
            this.run = run;
            this.batch = batch;
            this.sendMillis = sendMillis;
        }

        /** Starts every consumer at once; the seconds until the last found nothing left. */
        double drain(List<Connection> connections) throws Exception {
            CountDownLatch start = new CountDownLatch(1);
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < connections.size(); i++) {
                Connection c = connections.get(i);
                String name = "consumer-" + (i + 1);
                Thread thread = new Thread(() -> {
                    try {
                        start.await();
                        consume(c, name);
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }, "bench-" + name);
                threads.add(thread);
                thread.start();
            }
            long began = System.nanoTime();
            start.countDown();
            for (Thread thread : threads) {
                thread.join();
            }
            double seconds = (System.nanoTime() - began) / 1e9;
            if (failure.get() != null) {
                throw new IllegalStateException(claim.title + " failed", failure.get());
            }
            return seconds;
        }

        /** One consumer: batch after batch, until there is nothing left to take. */
        private void consume(Connection c, String name) throws Exception {
            if (claim == Claim.BLOCKING) {
                c.setAutoCommit(false);
            }
            while (true) {
                long token = tokens.incrementAndGet();
                List<Integer> ids = take(c, name, token);
                if (ids == null) {
                    if (claim == Claim.BLOCKING) {
                        c.commit();
                    }
                    return;
                }
                if (ids.isEmpty()) {
                    continue;
                }
                for (int ignored : ids) {
                    Thread.sleep(sendMillis);
                }
                mark(c, name, claim == Claim.SELECT_THEN_UPDATE ? null : token, ids);
                if (claim == Claim.BLOCKING) {
                    c.commit();
                }
            }
        }

        /** The next batch; empty after a claim that lost every job it found; null when nothing is left. */
        private List<Integer> take(Connection c, String name, long token) throws SQLException {
            return switch (claim) {
                case BLOCKING -> orNull(ids(c, BENCH.get("claim-blocking"), batch));
                case SELECT_THEN_UPDATE -> orNull(ids(c, LAB.get("select-unsent"), batch));
                case SKIP_LOCKED -> orNull(claimed(c, LAB.get("claim-skip-locked"), name, token));
                case REQUEST_TOKEN -> {
                    long free;
                    int got;
                    try (PreparedStatement ps = c.prepareStatement(LAB.get("claim-by-token"))) {
                        bindClaim(ps, name, token);
                        try (ResultSet rs = ps.executeQuery()) {
                            rs.next();
                            free = rs.getLong(1);
                            Array claimed = rs.getArray(2);
                            got = claimed == null ? 0 : ((Integer[]) claimed.getArray()).length;
                        }
                    }
                    if (free == 0) {
                        yield null;
                    }
                    if (got < free) {
                        shortBatches.increment();
                    }
                    try (PreparedStatement ps = c.prepareStatement(LAB.get("select-by-token"))) {
                        ps.setString(1, run);
                        ps.setLong(2, token);
                        yield rows(ps);
                    }
                }
            };
        }

        private static List<Integer> orNull(List<Integer> ids) {
            return ids.isEmpty() ? null : ids;
        }

        private List<Integer> ids(Connection c, String sql, int limit) throws SQLException {
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                ps.setString(1, run);
                ps.setInt(2, limit);
                return rows(ps);
            }
        }

        private List<Integer> claimed(Connection c, String sql, String name, long token) throws SQLException {
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                bindClaim(ps, name, token);
                return rows(ps);
            }
        }

        private void bindClaim(PreparedStatement ps, String name, long token) throws SQLException {
            ps.setString(1, run);
            ps.setLong(2, token);
            ps.setString(3, name);
            ps.setInt(4, 0);
            ps.setInt(5, batch);
        }

        private void mark(Connection c, String name, Long token, List<Integer> ids) throws SQLException {
            try (PreparedStatement ps = c.prepareStatement(LAB.get("mark-sent"))) {
                ps.setString(1, run);
                ps.setArray(2, c.createArrayOf("integer", ids.toArray()));
                ps.setString(3, name);
                if (token == null) {
                    ps.setNull(4, Types.BIGINT);
                } else {
                    ps.setLong(4, token);
                }
                ps.setBoolean(5, false);
                ps.executeQuery().close();
            }
        }

        private static List<Integer> rows(PreparedStatement ps) throws SQLException {
            List<Integer> ids = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    ids.add(rs.getInt(1));
                }
            }
            return ids;
        }
    }

    private static void withRunId(Connection c, String sql, String run) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, run);
            ps.execute();
        }
    }

    /** The lab's tables vacuumed, the JVM's garbage collected: no measurement pays for the last one's leftovers. */
    private static void settle(Postgres postgres) throws Exception {
        try (Connection c = postgres.connect("bench-settle"); Statement s = c.createStatement()) {
            s.execute("VACUUM racelab.email_jobs, racelab.sent_emails, racelab.job_queues");
        }
        System.gc();
        Thread.sleep(200);
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }
}
