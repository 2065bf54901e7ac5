package dev.racelab.bench;

import dev.racelab.backend.Postgres;
import dev.racelab.bench.JobQueueBenchmark.Claim;
import dev.racelab.bench.JobQueueBenchmark.Drain;
import dev.racelab.labs.jobqueue.JobClaims;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

import static dev.racelab.bench.BenchQueue.BENCH;
import static dev.racelab.bench.BenchQueue.LAB;

/**
 * RaceLab's side of the job-queue benchmark: consumers that loop as the lab's consumers do, with
 * the lab's own statements, each on a thread and a connection of its own opened before the clock
 * starts: take a batch, send each email (a sleep of the send time: the mail server's share), mark
 * the batch sent and write its outbox rows; until a claim finds nothing left.
 */
final class JobQueueConsumers {

    private final Claim claim;
    private final String run;
    private final int batch;
    private final int sendMillis;
    private final AtomicLong tokens = new AtomicLong();
    /** Claims that found jobs free (each consumer's last look at an empty queue not counted). */
    private final LongAdder claims = new LongAdder();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();

    private JobQueueConsumers(Claim claim, String run, int batch, int sendMillis) {
        this.claim = claim;
        this.run = run;
        this.batch = batch;
        this.sendMillis = sendMillis;
    }

    /** Drains {@code queue} with {@code consumers} consumers taking jobs the {@code claim} way. */
    static Drain drain(Postgres postgres, BenchQueue queue, Claim claim, int consumers, int batch, int sendMillis)
            throws Exception {
        List<Connection> connections = new ArrayList<>();
        try {
            for (int i = 0; i < consumers; i++) {
                connections.add(postgres.connect("bench-consumer-" + (i + 1)));
            }
            JobQueueConsumers crew = new JobQueueConsumers(claim, queue.run(), batch, sendMillis);
            double seconds = crew.drain(connections);
            return new Drain(queue.sentPerSecond("RaceLab's " + claim.title, seconds), crew.claims.sum());
        } finally {
            for (Connection c : connections) {
                c.close();
            }
        }
    }

    /** Starts every consumer at once; the seconds until the last found nothing left. */
    private double drain(List<Connection> connections) throws Exception {
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
            claims.increment();
            if (ids.isEmpty()) {
                continue;
            }
            for (int ignored : ids) {
                Thread.sleep(sendMillis);
            }
            mark(c, name, token, ids);
            if (claim == Claim.BLOCKING) {
                c.commit();
            }
        }
    }

    /** The next batch; empty after a claim that lost every job it found; null when nothing is left. */
    private List<Integer> take(Connection c, String name, long token) throws SQLException {
        return switch (claim) {
            case BLOCKING -> {
                try (PreparedStatement ps = c.prepareStatement(BENCH.get("claim-blocking"))) {
                    ps.setString(1, run);
                    ps.setInt(2, batch);
                    yield orNull(JobClaims.ids(ps));
                }
            }
            case SKIP_LOCKED -> {
                try (PreparedStatement ps = c.prepareStatement(LAB.get("claim-skip-locked"))) {
                    bindClaim(ps, name, token);
                    yield orNull(JobClaims.ids(ps));
                }
            }
            case REQUEST_TOKEN -> {
                long free;
                try (PreparedStatement ps = c.prepareStatement(LAB.get("claim-by-token"))) {
                    bindClaim(ps, name, token);
                    try (ResultSet rs = ps.executeQuery()) {
                        rs.next();
                        free = rs.getLong(1);
                        Array claimed = rs.getArray(2);
                        if (claimed != null) {
                            claimed.free();
                        }
                    }
                }
                if (free == 0) {
                    yield null;
                }
                try (PreparedStatement ps = c.prepareStatement(LAB.get("select-by-token"))) {
                    ps.setString(1, run);
                    ps.setLong(2, token);
                    yield JobClaims.ids(ps);
                }
            }
        };
    }

    private static List<Integer> orNull(List<Integer> ids) {
        return ids.isEmpty() ? null : ids;
    }

    private void bindClaim(PreparedStatement ps, String name, long token) throws SQLException {
        JobClaims.bind(ps, run, token, name, 0, batch);
    }

    private void mark(Connection c, String name, long token, List<Integer> ids) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(LAB.get("mark-sent"))) {
            ps.setString(1, run);
            ps.setArray(2, c.createArrayOf("integer", ids.toArray()));
            ps.setString(3, name);
            ps.setLong(4, token);
            ps.setBoolean(5, false);
            ps.executeQuery().close();
        }
    }
}
