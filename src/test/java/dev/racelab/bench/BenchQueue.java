package dev.racelab.bench;

import dev.racelab.backend.PgSchema;
import dev.racelab.backend.Postgres;
import dev.racelab.backend.SqlFile;
import dev.racelab.labs.jobqueue.JobQueueLab;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;

/**
 * One measurement's job queue in the job-queue lab's tables: filled at once with rows of a run id
 * of its own, drained by one side (RaceLab's consumers or pgbench's), checked, and forgotten.
 */
final class BenchQueue implements AutoCloseable {

    static final SqlFile LAB = SqlFile.load(JobQueueLab.class, "jobqueue.sql");
    static final SqlFile BENCH = SqlFile.load(BenchQueue.class, "jobqueue-bench.sql");

    private final Connection admin;
    private final String run;
    private final int jobs;

    private BenchQueue(Connection admin, String run, int jobs) {
        this.admin = admin;
        this.run = run;
        this.jobs = jobs;
    }

    /** Makes the lab's tables if they are missing. */
    static void ensureTables(Postgres postgres) throws SQLException {
        try (Connection admin = postgres.connect("bench-setup")) {
            PgSchema.ensure(admin, "job-queue", 1, LAB);
        }
    }

    /**
     * The lab's tables vacuumed, the JVM's garbage collected: no measurement pays for the last
     * one's leftovers. Then a queue of {@code jobs} unsent jobs, its statistics fresh.
     */
    static BenchQueue fill(Postgres postgres, int jobs) throws Exception {
        try (Connection c = postgres.connect("bench-settle"); Statement s = c.createStatement()) {
            s.execute("VACUUM racelab.email_jobs, racelab.sent_emails, racelab.job_queues");
        }
        System.gc();
        Thread.sleep(200);
        String run = "bench-" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt());
        Connection admin = postgres.connect("bench-setup");
        BenchQueue queue = new BenchQueue(admin, run, jobs);
        try {
            queue.withRunId(LAB.get("seed"));
            try (PreparedStatement fill = admin.prepareStatement(BENCH.get("fill"))) {
                fill.setString(1, run);
                fill.setInt(2, jobs);
                fill.executeUpdate();
            }
            try (Statement s = admin.createStatement()) {
                s.execute("ANALYZE racelab.email_jobs");
            }
            return queue;
        } catch (Exception e) {
            queue.close();
            throw e;
        }
    }

    /** The run id its jobs carry. */
    String run() {
        return run;
    }

    /**
     * Jobs sent per second, once drained in {@code seconds}; fails unless every job was sent
     * exactly once (no claim here may send a job twice).
     */
    double sentPerSecond(String side, double seconds) throws SQLException {
        try (PreparedStatement ps = admin.prepareStatement(BENCH.get("outbox"))) {
            ps.setString(1, run);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                long emails = rs.getLong(1);
                long sent = rs.getLong(2);
                if (sent != jobs || emails != jobs) {
                    throw new IllegalStateException(side + " sent " + emails + " emails for " + sent + " of " + jobs
                            + " jobs");
                }
                return sent / seconds;
            }
        }
    }

    private void withRunId(String sql) throws SQLException {
        try (PreparedStatement ps = admin.prepareStatement(sql)) {
            ps.setString(1, run);
            ps.execute();
        }
    }

    @Override
    public void close() throws SQLException {
        try {
            withRunId(LAB.get("forget"));
        } finally {
            admin.close();
        }
    }
}
