package dev.racelab.bench;

import dev.racelab.backend.Postgres;
import dev.racelab.support.TestServers;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.ToDoubleFunction;

/**
 * How fast each way of claiming drains a job queue, RaceLab beside pgbench: jobs sent per second
 * with 1, 8 and 32 consumers, for the job-queue lab's two claims (request-token, skip-locked) and,
 * as the baseline, a blocking claim ({@code SELECT … FOR UPDATE}, the lock kept while the batch is
 * sent, as the first comment under the source article proposes). RaceLab's consumers
 * ({@link JobQueueConsumers}) and pgbench's clients ({@link JobQueuePgbench}) send the same
 * statements with the same batch and send time, on the same server, one after the other in each
 * round, alternating who goes first.
 *
 * <p>Each measurement fills a fresh queue at once ({@link BenchQueue}) and times its consumers from
 * a common start until the last one found nothing left. The rate is jobs sent per second; claims
 * are the claims that found jobs free, so beyond jobs ÷ batch they are claims that came back short
 * (request-token's: they found jobs free, waited for another claim's row locks, and found them
 * taken). Every round is printed with the machine's load; then the median of the rounds.
 *
 * <p>Run with {@code scripts/bench jobqueue [rounds] [send-ms] [batch] [busy] [waits]} (3, 2, 4);
 * {@code busy} runs one busy loop per core beside it ({@link MachineLoad}), {@code waits} samples
 * where the claims wait ({@link ClaimWaits}). Uses {@code RACELAB_PG_URL} or
 * the embedded PostgreSQL, and pgbench from the PATH. The goals at 32 consumers: request-token and
 * skip-locked at least five times the blocking claim; each of RaceLab's claims at least 0.95 of
 * pgbench's.
 */
public final class JobQueueBenchmark {

    private static final int[] CONSUMERS = {1, 8, 32};
    private static final double GOAL = 5.0;
    private static final double PEER_GOAL = 0.95;

    /** How a consumer takes its batches. */
    enum Claim {
        BLOCKING("blocking (for-update)"),
        REQUEST_TOKEN("request-token"),
        SKIP_LOCKED("skip-locked");

        final String title;

        Claim(String title) {
            this.title = title;
        }
    }

    /**
     * What one side's measurement found: jobs sent per second, claims that found jobs free, and
     * (when sampled) where its claims waited.
     */
    record Drain(double jobsPerSecond, long claims, String waits) {

        Drain(double jobsPerSecond, long claims) {
            this(jobsPerSecond, claims, "");
        }

        Drain withWaits(String seen) {
            return new Drain(jobsPerSecond, claims, seen);
        }
    }

    /** One round at one number of consumers: each claim, RaceLab's and pgbench's. */
    private record Round(double load, Drain[] racelab, Drain[] pgbench) {

        double rate(boolean ours, Claim claim) {
            return (ours ? racelab : pgbench)[claim.ordinal()].jobsPerSecond();
        }
    }

    private JobQueueBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 3;
        int sendMillis = args.length > 1 ? Integer.parseInt(args[1]) : 2;
        int batch = args.length > 2 ? Integer.parseInt(args[2]) : 4;
        List<String> words = Arrays.asList(args).subList(Math.min(3, args.length), args.length);
        boolean busy = words.contains("busy");
        boolean sampled = words.contains("waits");
        Postgres postgres = TestServers.postgres();
        BenchQueue.ensureTables(postgres);
        try (MachineLoad machine = busy ? MachineLoad.busyLoops() : MachineLoad.asItIs();
             JobQueuePgbench pgbench = new JobQueuePgbench(postgres, batch, sendMillis)) {
            System.out.printf("job queue: jobs sent per second draining a full queue, RaceLab's consumers beside pgbench "
                            + "clients (-M prepared, one thread per client) sending the same statements; batches of %d, "
                            + "%d ms to send an email; %d rounds, alternating who goes first; %d cores, %s; %s%n",
                    batch, sendMillis, rounds, Runtime.getRuntime().availableProcessors(), machine.describe(),
                    postgres.describe());
            System.out.printf("%9s %5s %5s  %-22s %9s %9s %7s %15s %16s%n", "consumers", "round", "load", "claim",
                    "RaceLab", "pgbench", "R/P", "claims R|P", "× blocking R|P");
            List<List<Round>> all = new ArrayList<>();
            for (int consumers : CONSUMERS) {
                int jobs = Math.max(200, 50 * consumers);
                List<Round> measured = new ArrayList<>();
                for (int round = 0; round < rounds; round++) {
                    Round r = round(postgres, pgbench, consumers, jobs, batch, sendMillis, round, sampled);
                    measured.add(r);
                    print(consumers, String.valueOf(round + 1), r.load, r.racelab, r.pgbench);
                    if (sampled) {
                        printWaits(r);
                    }
                }
                print(consumers, "med", median(measured, Round::load), medians(measured, true),
                        medians(measured, false));
                all.add(measured);
            }
            goals(all.get(all.size() - 1), machine);
        }
        System.exit(0);
    }

    /** Each claim once on each side, the claims' order and who goes first alternating from round to round. */
    private static Round round(Postgres postgres, JobQueuePgbench pgbench, int consumers, int jobs, int batch,
                               int sendMillis, int round, boolean sampled) throws Exception {
        double load = MachineLoad.oneMinute();
        Drain[] ours = new Drain[Claim.values().length];
        Drain[] theirs = new Drain[Claim.values().length];
        Claim[] claims = Claim.values();
        for (int i = 0; i < claims.length; i++) {
            Claim claim = claims[round % 2 == 0 ? i : claims.length - 1 - i];
            boolean oursFirst = (round + i) % 2 == 0;
            for (int side = 0; side < 2; side++) {
                boolean racelab = oursFirst == (side == 0);
                Drain drain;
                ClaimWaits waits = ClaimWaits.NONE;
                try (BenchQueue queue = BenchQueue.fill(postgres, jobs)) {
                    waits = sampled ? ClaimWaits.start(postgres) : ClaimWaits.NONE;
                    drain = racelab ? JobQueueConsumers.drain(postgres, queue, claim, consumers, batch, sendMillis)
                            : pgbench.drain(queue, claim, consumers);
                } finally {
                    waits.close();
                }
                (racelab ? ours : theirs)[claim.ordinal()] = drain.withWaits(waits.summary());
            }
        }
        return new Round(load, ours, theirs);
    }

    private static void print(int consumers, String round, double load, Drain[] ours, Drain[] theirs) {
        for (Claim claim : Claim.values()) {
            Drain r = ours[claim.ordinal()];
            Drain p = theirs[claim.ordinal()];
            double blockingR = ours[Claim.BLOCKING.ordinal()].jobsPerSecond();
            double blockingP = theirs[Claim.BLOCKING.ordinal()].jobsPerSecond();
            boolean first = claim == Claim.BLOCKING;
            System.out.printf("%9s %5s %5s  %-22s %,9.0f %,9.0f %7.2f %15s %16s%n", first ? consumers : "",
                    first ? round : "", first ? String.format("%.1f", load) : "", claim.title, r.jobsPerSecond(),
                    p.jobsPerSecond(), r.jobsPerSecond() / p.jobsPerSecond(), r.claims() + " | " + p.claims(),
                    String.format("%.1f | %.1f", r.jobsPerSecond() / blockingR, p.jobsPerSecond() / blockingP));
        }
    }

    /** Where each claim's statements waited in this round, each side. */
    private static void printWaits(Round r) {
        for (Claim claim : Claim.values()) {
            System.out.printf("%23s  waits in %s's claims: RaceLab %s; pgbench %s%n", "", claim.title,
                    r.racelab[claim.ordinal()].waits(), r.pgbench[claim.ordinal()].waits());
        }
    }

    /** The goals at the largest number of consumers, on the medians of the rounds. */
    private static void goals(List<Round> rounds, MachineLoad machine) {
        Drain[] ours = medians(rounds, true);
        Drain[] theirs = medians(rounds, false);
        System.out.printf("goals at %d consumers (medians; %s):%n", CONSUMERS[CONSUMERS.length - 1], machine.describe());
        for (Claim claim : List.of(Claim.REQUEST_TOKEN, Claim.SKIP_LOCKED)) {
            double r = ours[claim.ordinal()].jobsPerSecond() / ours[Claim.BLOCKING.ordinal()].jobsPerSecond();
            double p = theirs[claim.ordinal()].jobsPerSecond() / theirs[Claim.BLOCKING.ordinal()].jobsPerSecond();
            System.out.printf("  %s ≥ %.0f× blocking: RaceLab %.1f× — %s (pgbench %.1f×)%n", claim.title, GOAL, r,
                    r >= GOAL ? "met" : "MISSED", p);
        }
        for (Claim claim : Claim.values()) {
            double ratio = ours[claim.ordinal()].jobsPerSecond() / theirs[claim.ordinal()].jobsPerSecond();
            System.out.printf("  %s, RaceLab ≥ %.2f× pgbench: %.2f× — %s%n", claim.title, PEER_GOAL, ratio,
                    ratio >= PEER_GOAL ? "met" : "MISSED");
        }
    }

    /** Each claim's median rate and claims over the rounds, on one side. */
    private static Drain[] medians(List<Round> rounds, boolean ours) {
        Drain[] out = new Drain[Claim.values().length];
        for (Claim claim : Claim.values()) {
            out[claim.ordinal()] = new Drain(median(rounds, r -> r.rate(ours, claim)),
                    Math.round(median(rounds, r -> (ours ? r.racelab : r.pgbench)[claim.ordinal()].claims())));
        }
        return out;
    }

    private static double median(List<Round> rounds, ToDoubleFunction<Round> value) {
        double[] sorted = rounds.stream().mapToDouble(value).sorted().toArray();
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }
}
