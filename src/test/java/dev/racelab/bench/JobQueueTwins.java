package dev.racelab.bench;

import dev.racelab.backend.Postgres;
import dev.racelab.backend.SqlFile;
import dev.racelab.labs.jobqueue.JobQueueLab;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The job queue's raw twins: a producer adding each round's jobs, consumers taking batches the
 * strategy's way and marking them sent, each on a session of its own, autocommit, with the lab's
 * statements. An operation is a round, as in the lab: the producer adds one batch per consumer;
 * a consumer's round ends once every job of it and the rounds before is marked sent (read from
 * what the marks answered, as the lab's consumers read it). A consumer that finds nothing to take
 * waits 5 ms, as the lab's does.
 *
 * <p>Both sides run without the sleeps that would hide the client's cost: no time to send an
 * email ({@code send-ms=0}) and a producer as fast as it can insert ({@code producer-rate}
 * at its most); the batch is the lab's (4), no lease, the unconditional mark.
 */
final class JobQueueTwins {

    private static final SqlFile SQL = SqlFile.load(JobQueueLab.class, "jobqueue.sql");
    private static final String DEADLOCK_DETECTED = "40P01";
    private static final int BATCH = 4;
    private static final int PRODUCER_RATE = 100_000;
    private static final long POLL_MILLIS = 5;
    private static final Map<String, String> SWITCHES = Map.of("batch", String.valueOf(BATCH), "send-ms", "0",
            "producer-rate", String.valueOf(PRODUCER_RATE));
    private static final String PRODUCER = "producer: INSERT a job; consumer: ";
    private static final String MARK = "; mark: UPDATE sent + INSERT outbox (one statement); autocommit";

    private JobQueueTwins() {
    }

    /** How a consumer takes a batch. */
    private enum Claim { SELECT, TOKEN, SKIP_LOCKED }

    static Map<String, RawTwin> all() {
        return Map.of(
                "job-queue/select-then-update", new RawTwin(PRODUCER + "SELECT the oldest unsent" + MARK, SWITCHES,
                        rounds(Claim.SELECT)),
                "job-queue/request-token", new RawTwin(PRODUCER + "UPDATE … SET request_token (claim); "
                        + "SELECT … WHERE request_token = mine" + MARK, SWITCHES, rounds(Claim.TOKEN)),
                "job-queue/skip-locked", new RawTwin(PRODUCER + "UPDATE … FROM (SELECT … FOR UPDATE SKIP LOCKED)"
                        + MARK, SWITCHES, rounds(Claim.SKIP_LOCKED)));
    }

    private static RawTwin.Rounds rounds(Claim claim) {
        return (postgres, run, workers, ops) -> new Queue(postgres, run, workers, ops, claim);
    }

    /** One round's queue: its jobs' marks as the consumers learnt them, and the tokens of the claims. */
    private static final class Queue extends RawTwin.Seeded {

        private final Claim claim;
        private final int perRound;
        private final AtomicInteger added = new AtomicInteger();
        private final AtomicIntegerArray marks;
        private final AtomicLong tokens = new AtomicLong();

        Queue(Postgres postgres, String run, int workers, int ops, Claim claim) throws SQLException {
            super(postgres, run, SQL);
            this.claim = claim;
            this.perRound = (workers - 1) * BATCH;
            this.marks = new AtomicIntegerArray(perRound * ops + 1);
        }

        @Override
        public RawTwin.Worker worker(int index) throws SQLException {
            Connection c = connect(index, Connection.TRANSACTION_NONE);
            return index == 0 ? new Producer(c) : new Consumer(c, "consumer-" + index);
        }

        /** Whether the first {@code upTo} jobs are added and each marked sent. */
        private boolean settled(int upTo) {
            if (added.get() < upTo) {
                return false;
            }
            for (int id = 1; id <= upTo; id++) {
                if (marks.get(id) == 0) {
                    return false;
                }
            }
            return true;
        }

        private final class Producer implements RawTwin.Worker {

            private final Connection c;
            private final long periodNanos = TimeUnit.SECONDS.toNanos(1) / PRODUCER_RATE;
            private long startNanos;

            Producer(Connection c) {
                this.c = c;
            }

            @Override
            public void operation(int n) throws Exception {
                if (n == 0) {
                    startNanos = System.nanoTime();
                }
                for (int k = 0; k < perRound; k++) {
                    int id = n * perRound + k + 1;
                    long wait = startNanos + (id - 1) * periodNanos - System.nanoTime();
                    if (wait > 0) {
                        TimeUnit.NANOSECONDS.sleep(wait);
                    }
                    try (PreparedStatement ps = c.prepareStatement(SQL.get("add-job"))) {
                        ps.setString(1, run);
                        ps.setInt(2, id);
                        ps.setString(3, "reader-" + id + "@example.org");
                        ps.setString(4, "Your order #" + id + " has shipped");
                        ps.executeUpdate();
                    }
                    added.set(id);
                }
            }

            @Override
            public void close() throws SQLException {
                c.close();
            }
        }

        private final class Consumer implements RawTwin.Worker {

            private final Connection c;
            private final String name;

            Consumer(Connection c, String name) {
                this.c = c;
                this.name = name;
            }

            @Override
            public void operation(int n) throws Exception {
                int upTo = (n + 1) * perRound;
                while (!settled(upTo)) {
                    long token = claim == Claim.SELECT ? 0 : tokens.incrementAndGet();
                    List<Integer> ids = switch (claim) {
                        case SELECT -> orNull(ids(select(SQL.get("select-unsent"), BATCH)));
                        case TOKEN -> claimByToken(token);
                        case SKIP_LOCKED -> orNull(ids(claim(SQL.get("claim-skip-locked"), token)));
                    };
                    if (ids == null) {
                        TimeUnit.MILLISECONDS.sleep(POLL_MILLIS);
                    } else if (!ids.isEmpty()) {
                        ids.sort(null);
                        mark(ids, token);
                    }
                }
            }

            /** The claim, then the jobs that carry the token; null when the claim found none free. */
            private List<Integer> claimByToken(long token) throws SQLException {
                long free;
                int got;
                try (PreparedStatement ps = claim(SQL.get("claim-by-token"), token);
                     ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    free = rs.getLong(1);
                    Array claimed = rs.getArray(2);
                    got = claimed == null ? 0 : ((Integer[]) claimed.getArray()).length;
                } catch (SQLException e) {
                    if (!DEADLOCK_DETECTED.equals(e.getSQLState())) {
                        throw e;
                    }
                    // Cancelled as a deadlock, the claim took nothing: claimed again, as the lab does.
                    return List.of();
                }
                if (free == 0) {
                    return null;
                }
                if (got == 0) {
                    return List.of();
                }
                return ids(select(SQL.get("select-by-token"), token));
            }

            private PreparedStatement select(String sql, long second) throws SQLException {
                PreparedStatement ps = c.prepareStatement(sql);
                ps.setString(1, run);
                ps.setLong(2, second);
                return ps;
            }

            private PreparedStatement claim(String sql, long token) throws SQLException {
                PreparedStatement ps = c.prepareStatement(sql);
                ps.setString(1, run);
                ps.setLong(2, token);
                ps.setString(3, name);
                ps.setInt(4, 0);
                ps.setInt(5, BATCH);
                return ps;
            }

            private static List<Integer> orNull(List<Integer> ids) {
                return ids.isEmpty() ? null : ids;
            }

            /** The ids {@code ps} answers, one a row. */
            private List<Integer> ids(PreparedStatement ps) throws SQLException {
                List<Integer> ids = new ArrayList<>();
                try (ps; ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        ids.add(rs.getInt(1));
                    }
                }
                return ids;
            }

            /** The mark, again when PostgreSQL cancelled it as a deadlock (it marked nothing), as the lab marks. */
            private static ResultSet executeMark(PreparedStatement ps) throws SQLException {
                while (true) {
                    try {
                        return ps.executeQuery();
                    } catch (SQLException e) {
                        if (!DEADLOCK_DETECTED.equals(e.getSQLState())) {
                            throw e;
                        }
                    }
                }
            }

            private void mark(List<Integer> ids, long token) throws SQLException {
                try (PreparedStatement ps = c.prepareStatement(SQL.get("mark-sent"))) {
                    ps.setString(1, run);
                    ps.setArray(2, c.createArrayOf("integer", ids.toArray()));
                    ps.setString(3, name);
                    if (claim == Claim.SELECT) {
                        ps.setNull(4, Types.BIGINT);
                    } else {
                        ps.setLong(4, token);
                    }
                    ps.setBoolean(5, false);
                    try (ResultSet rs = executeMark(ps)) {
                        while (rs.next()) {
                            marks.set(rs.getInt(1), rs.getInt(2));
                        }
                    }
                }
            }

            @Override
            public void close() throws SQLException {
                c.close();
            }
        }
    }
}
