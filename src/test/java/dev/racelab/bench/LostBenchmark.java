package dev.racelab.bench;

import dev.racelab.backend.Postgres;
import dev.racelab.engine.Clock;
import dev.racelab.engine.Event;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.GatePlan;
import dev.racelab.engine.GateRule;
import dev.racelab.engine.Outcome;
import dev.racelab.engine.Run;
import dev.racelab.engine.RunSpec;
import dev.racelab.engine.Verdict;
import dev.racelab.labs.counter.CounterLab;
import dev.racelab.support.TestServers;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Does RaceLab show the race a plain program has? The counter's read-modify-write run by RaceLab
 * (as {@code scripts/racelab run counter --delay before-read=0 --delay after-read=N} runs it, no
 * observers) beside pgbench sending the same two statements with the same pause between them
 * ({@code SELECT value, writes …}; {@code \sleep}; {@code UPDATE … SET value = :value + 1 …}), from
 * as many clients, on the same server: the increments each loses, round by round, alternating who
 * goes first, with the machine's load.
 *
 * <p>The two distributions are compared with a two-sided Mann–Whitney U test (normal approximation
 * with a correction for ties): p > 0.05 says nothing tells them apart. Each RaceLab run's reported
 * final value is checked against the row, as its record shows the row (the latest write in the
 * server's order) and as its increments and losses add up.
 *
 * <p>Run with {@code scripts/bench lost [runs] [clients] [increments] [pause-ms] [pgbench]} (30, 8, 50,
 * 5; {@code pgbench} puts pgbench on both sides, to see how far apart one program comes from itself);
 * needs {@code pgbench} on the PATH. Uses {@code RACELAB_PG_URL} or the embedded PostgreSQL.
 */
public final class LostBenchmark {

    private LostBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int runs = args.length > 0 ? Integer.parseInt(args[0]) : 30;
        int clients = args.length > 1 ? Integer.parseInt(args[1]) : 8;
        int increments = args.length > 2 ? Integer.parseInt(args[2]) : 50;
        int pauseMs = args.length > 3 ? Integer.parseInt(args[3]) : 5;
        // "pgbench": both sides pgbench, to see how far apart two runs of one program come out.
        boolean againstItself = args.length > 4 && args[4].equals("pgbench");
        Postgres postgres = TestServers.postgres();
        CounterLab lab = new CounterLab(TestServers.backends());
        Path script = Files.createTempFile("racelab-lost-", ".pgbench");
        Files.writeString(script, "SELECT value, writes FROM racelab.counters WHERE run_id = :run \\gset\n"
                + "\\sleep " + pauseMs + " ms\n"
                + "UPDATE racelab.counters SET value = :value + 1 WHERE run_id = :run RETURNING overwritten, writes;\n",
                StandardCharsets.UTF_8);
        System.out.printf("lost increments: counter read-modify-write, %d clients × %d increments, %d ms between read "
                        + "and write; RaceLab beside pgbench (-M prepared, one thread per client) with the same "
                        + "statements; %d runs each, alternating who goes first; %d cores; %s%n", clients, increments,
                pauseMs, runs, Runtime.getRuntime().availableProcessors(), postgres.describe());
        System.out.printf("%5s %8s %8s %8s  %s%n", "round", "RaceLab", "pgbench", "load", "RaceLab's final value");
        long[] ours = new long[runs];
        long[] theirs = new long[runs];
        int agreeing = 0;
        try {
            for (int round = 0; round < runs; round++) {
                boolean oursFirst = round % 2 == 0;
                Result first = oursFirst && !againstItself ? racelab(lab, clients, increments, pauseMs, round)
                        : pgbench(postgres, script, clients, increments);
                Result second = oursFirst || againstItself ? pgbench(postgres, script, clients, increments)
                        : racelab(lab, clients, increments, pauseMs, round);
                Result our = oursFirst ? first : second;
                Result their = oursFirst ? second : first;
                ours[round] = our.lost();
                theirs[round] = their.lost();
                agreeing += our.agrees() ? 1 : 0;
                if (againstItself) {
                    our = new Result(our.lost(), true, "(pgbench)");
                }
                System.out.printf("%5d %8d %8d %8.1f  %s%n", round + 1, our.lost(), their.lost(), MachineLoad.oneMinute(),
                        our.note() + (their.note().isEmpty() ? "" : "; " + their.note()));
            }
        } finally {
            Files.deleteIfExists(script);
        }
        System.out.printf("median lost: RaceLab %.1f, pgbench %.1f (of %d); Mann–Whitney p = %.3g (%s); "
                        + "final value equal to the row: %d of %d runs%n", median(ours), median(theirs),
                clients * increments, mannWhitneyP(ours, theirs),
                mannWhitneyP(ours, theirs) > 0.05 ? "indistinguishable at 0.05" : "DIFFERENT at 0.05", agreeing, runs);
        System.exit(0);
    }

    /** One side's run: the increments it lost; for RaceLab, whether its final value agrees with the row. */
    private record Result(long lost, boolean agrees, String note) {
    }

    private static Result racelab(CounterLab lab, int clients, int increments, int pauseMs, int seed) throws Exception {
        RunSpec spec = lab.defaults().withStrategy("read-modify-write").withWorkers(clients).withOps(increments)
                .withSeed(seed).withGates(GatePlan.NONE.with("after-read", GateRule.fixed(pauseMs)))
                .withTimeout(Duration.ofMinutes(2));
        Run run = new Run(lab, spec, Clock.system());
        run.start();
        Outcome outcome = run.awaitOutcome(Duration.ofMinutes(3));
        if (outcome.verdict() != Verdict.RACE && outcome.verdict() != Verdict.SAFE) {
            throw new IllegalStateException("RaceLab's run: " + outcome.banner());
        }
        long reported = outcome.metrics().get("finalValue").longValue();
        long committed = outcome.metrics().get("committedIncrements").longValue();
        long lost = outcome.metrics().get("lostIncrements").longValue();
        long recorded = latestWrite(run.recorder().snapshot());
        boolean agrees = reported == recorded && committed - lost == reported && committed == (long) clients * increments;
        double msPerRound = clients * 1000.0 / outcome.metrics().get("opsPerSec").doubleValue();
        Map<Integer, Long> firstRead = new HashMap<>();
        for (Event e : run.recorder().snapshot()) {
            if (e.kind() == EventKind.READ) {
                firstRead.putIfAbsent(e.actor(), e.nanos());
            }
        }
        double spread = (Collections.max(firstRead.values()) - Collections.min(firstRead.values())) / 1e6;
        String note = reported + (agrees ? "" : " DISAGREES: the record's latest write " + recorded + ", committed "
                + committed + " − lost " + lost) + String.format(" · a round %.2f ms, first reads within %.2f ms", msPerRound, spread);
        return new Result(lost, agrees, note);
    }

    /** The value of the latest write in the server's order, as the record shows it. */
    private static long latestWrite(List<Event> events) {
        Map<Integer, Long> pending = new HashMap<>();
        long latest = 0;
        long value = 0;
        for (Event e : events) {
            if (e.kind() == EventKind.WRITE) {
                pending.put(e.actor(), e.value());
            } else if (e.kind() == EventKind.WRITE_ORDER && e.value() > latest && pending.containsKey(e.actor())) {
                latest = e.value();
                value = pending.get(e.actor());
            }
        }
        return value;
    }

    /** pgbench's run on a row of its own in RaceLab's counter table; the increments it lost. */
    private static Result pgbench(Postgres postgres, Path script, int clients, int increments) throws Exception {
        String run = "pgbench-" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt());
        try (Connection c = postgres.connect("bench-lost")) {
            execute(c, "INSERT INTO racelab.counters (run_id) VALUES (?)", run);
            try {
                Pgbench.Report report = Pgbench.run(postgres.address(), script, clients, increments, Map.of("run", run), false);
                try (PreparedStatement ps = c.prepareStatement("SELECT value FROM racelab.counters WHERE run_id = ?")) {
                    ps.setString(1, run);
                    try (ResultSet rs = ps.executeQuery()) {
                        rs.next();
                        return new Result((long) clients * increments - rs.getLong(1), true,
                                String.format("pgbench's round %.2f ms", report.seconds() * 1000 / increments));
                    }
                }
            } finally {
                execute(c, "DELETE FROM racelab.counters WHERE run_id = ?", run);
            }
        }
    }

    private static void execute(Connection c, String sql, String run) throws Exception {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, run);
            ps.execute();
        }
    }

    /**
     * Two-sided p of the Mann–Whitney U test of {@code a} against {@code b}: ranks over both
     * (ties share their mean rank), U from {@code a}'s rank sum, and the normal approximation with
     * the tie-corrected variance and a continuity correction.
     */
    static double mannWhitneyP(long[] a, long[] b) {
        int n1 = a.length;
        int n2 = b.length;
        long[][] all = new long[n1 + n2][];
        for (int i = 0; i < n1; i++) {
            all[i] = new long[] {a[i], 0};
        }
        for (int i = 0; i < n2; i++) {
            all[n1 + i] = new long[] {b[i], 1};
        }
        Arrays.sort(all, (x, y) -> Long.compare(x[0], y[0]));
        double rankSumA = 0;
        double ties = 0;
        int n = n1 + n2;
        for (int i = 0; i < n; ) {
            int j = i;
            while (j < n && all[j][0] == all[i][0]) {
                j++;
            }
            double rank = (i + 1 + j) / 2.0;
            for (int k = i; k < j; k++) {
                if (all[k][1] == 0) {
                    rankSumA += rank;
                }
            }
            double t = j - i;
            ties += t * t * t - t;
            i = j;
        }
        double u = rankSumA - n1 * (n1 + 1) / 2.0;
        double mean = n1 * (double) n2 / 2;
        double variance = n1 * (double) n2 / 12 * ((n + 1) - ties / ((double) n * (n - 1)));
        if (variance <= 0) {
            return 1;
        }
        double z = (Math.abs(u - mean) - 0.5) / Math.sqrt(variance);
        return Math.min(1, 2 * (1 - normalCdf(Math.max(0, z))));
    }

    /** The standard normal distribution function (Abramowitz and Stegun 26.2.17, error below 7.5e-8). */
    private static double normalCdf(double z) {
        double t = 1 / (1 + 0.2316419 * Math.abs(z));
        double d = 0.3989422804014327 * Math.exp(-z * z / 2);
        double p = d * t * (0.319381530 + t * (-0.356563782 + t * (1.781477937 + t * (-1.821255978 + t * 1.330274429))));
        return z >= 0 ? 1 - p : p;
    }

    private static double median(long[] values) {
        long[] sorted = values.clone();
        Arrays.sort(sorted);
        int mid = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2.0;
    }
}
