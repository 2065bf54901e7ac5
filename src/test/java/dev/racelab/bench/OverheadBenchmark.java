package dev.racelab.bench;

import dev.racelab.backend.Postgres;
import dev.racelab.backend.SqlFile;
import dev.racelab.engine.Clock;
import dev.racelab.engine.GatePlan;
import dev.racelab.engine.Lab;
import dev.racelab.engine.Outcome;
import dev.racelab.engine.Run;
import dev.racelab.engine.RunSpec;
import dev.racelab.engine.Service;
import dev.racelab.engine.Strategy;
import dev.racelab.engine.Verdict;
import dev.racelab.labs.Labs;
import dev.racelab.labs.counter.CounterLab;
import dev.racelab.labs.fencing.FencingLab;
import dev.racelab.support.SentStatements;
import dev.racelab.support.TestServers;

import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicReference;

/**
 * What RaceLab's instrumentation costs: each PostgreSQL strategy of each lab, run as a real
 * {@link Run} (no observers unless asked, below; no gates) beside a raw JDBC client that issues the same statements
 * (the lab's own SQL file, the same parameters, the same transaction handling, the isolation level
 * set once per session as the lab's sessions do) from as many threads, each with its own
 * connection, on the same server, in the same process.
 *
 * <p>Rounds alternate which of the two goes first; the first round warms both up and sizes the
 * later ones (operations per worker so that a raw round takes about the target time) and is not
 * counted. Before each side the lab's tables are vacuumed and the JVM's garbage collected (in a heap
 * of fixed size: a growable one shrinks at each collection, and RaceLab's side, which keeps every
 * event it records, would pay young collections for the heap's regrowth). A
 * RaceLab round's rate is the run's own {@code opsPerSec}, which times the workers'
 * phase only; a raw round is timed the same way, from starting its threads to the last one ending,
 * with its connections already open. The figure is RaceLab's rate over the raw rate: the median
 * over the rounds, a bootstrap 95% interval of that median (on two busy cores a single round swings
 * by a quarter either way, as a run of the raw client against itself shows), and the worst round. The goal is ≥ 0.95. Beside it, the CPU this process spent
 * per operation on each side: on a busy machine the rates swing from round to round, the client's
 * own cost much less, and it is where instrumentation would show.
 *
 * <p>Before timing anything it counts the statements each side sends per operation, with one
 * worker (no contention, no retries), from pgjdbc's own log of what it puts on the wire: the two
 * columns must agree, or the comparison is not fair.
 *
 * <p>Run with {@code scripts/bench overhead [rounds] [seconds-per-round] [workers] [lab/strategy
 * prefix]}; uses {@code RACELAB_PG_URL} or the embedded PostgreSQL. With {@code
 * BENCH_OPTS=-Dracelab.bench.observe=true} RaceLab's runs also read the server onto their server
 * lanes, as the window's runs do: the difference between the two ratios is what observing costs.
 */
public final class OverheadBenchmark {

    private static final int DEFAULT_WORKERS = 8;
    private static final int SIZING_OPS = 100;
    private static final int COUNTING_OPS = 50;
    private static final double GOAL = 0.95;
    private static final Duration RUN_WAIT = Duration.ofMinutes(5);
    /** Whether RaceLab's runs observe the server (the window's runs do; the command line's do not). */
    private static final boolean OBSERVE = Boolean.getBoolean("racelab.bench.observe");

    private static final SqlFile COUNTER = SqlFile.load(CounterLab.class, "counter.sql");
    private static final SqlFile FENCING = SqlFile.load(FencingLab.class, "fencing.sql");
    private static final String SERIALIZATION_FAILURE = "40001";
    private static final com.sun.management.OperatingSystemMXBean JVM =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    /** The raw twin of each lab strategy, by {@code lab/strategy}: what its worker sends, and nothing else. */
    private static final Map<String, RawTwin> TWINS = Map.of(
            "counter/read-modify-write", new RawTwin(COUNTER, Connection.TRANSACTION_NONE, (c, run, index, workers) -> n -> {
                long value = queryLong(c, COUNTER.get("read"), run);
                update(c, COUNTER.get("write"), value + 1, run);
            }),
            "counter/atomic-update", new RawTwin(COUNTER, Connection.TRANSACTION_NONE, (c, run, index, workers) -> n -> {
                try (PreparedStatement ps = c.prepareStatement(COUNTER.get("increment"))) {
                    ps.setString(1, run);
                    try (ResultSet rs = ps.executeQuery()) {
                        rs.next();
                        rs.getLong(1);
                        rs.getLong(2);
                    }
                }
            }),
            "counter/select-for-update", new RawTwin(COUNTER, Connection.TRANSACTION_READ_COMMITTED,
                    (c, run, index, workers) -> n -> inTransaction(c, () -> {
                        long value = queryLong(c, COUNTER.get("read-for-update"), run);
                        update(c, COUNTER.get("write"), value + 1, run);
                    })),
            "counter/serializable-retry", new RawTwin(COUNTER, Connection.TRANSACTION_SERIALIZABLE,
                    (c, run, index, workers) -> n -> {
                        while (true) {
                            try {
                                inTransaction(c, () -> {
                                    long value = queryLong(c, COUNTER.get("read"), run);
                                    update(c, COUNTER.get("write"), value + 1, run);
                                });
                                return;
                            } catch (SQLException e) {
                                if (!SERIALIZATION_FAILURE.equals(e.getSQLState())) {
                                    throw e;
                                }
                            }
                        }
                    }),
            "fencing/blind-write", new RawTwin(FENCING, Connection.TRANSACTION_NONE, (c, run, index, workers) -> n -> {
                long token = queryLong(c, FENCING.get("next-token"), run);
                writePrice(c, "write-price", price(index, n, workers), token, run);
            }),
            "fencing/check-then-write", new RawTwin(FENCING, Connection.TRANSACTION_NONE, (c, run, index, workers) -> n -> {
                long token = queryLong(c, FENCING.get("next-token"), run);
                if (queryLong(c, FENCING.get("latest-token"), run) <= token) {
                    writePrice(c, "write-price", price(index, n, workers), token, run);
                }
            }),
            "fencing/fenced-cas", new RawTwin(FENCING, Connection.TRANSACTION_NONE, (c, run, index, workers) -> n -> {
                long token = queryLong(c, FENCING.get("next-token"), run);
                writePrice(c, "write-price-if-newer", price(index, n, workers), token, run);
            }));

    private static final long SETTLE_MILLIS = 300;

    private OverheadBenchmark() {
    }

    /** One connection's script: what one operation sends. */
    @FunctionalInterface
    private interface RawScript {
        void operation(int n) throws SQLException;
    }

    /** Makes worker {@code index}'s script (of {@code workers}) on its connection {@code c}, for rows of run {@code run}. */
    @FunctionalInterface
    private interface RawScripts {
        RawScript open(Connection c, String run, int index, int workers);
    }

    /**
     * A lab strategy's raw twin: the lab's SQL file (for seeding and forgetting its rows as the lab
     * does), the isolation level its sessions start with ({@code TRANSACTION_NONE}: the server's
     * default, left alone as the lab leaves it), and its script.
     */
    private record RawTwin(SqlFile sql, int isolation, RawScripts scripts) {
    }

    @FunctionalInterface
    private interface Body {
        void run() throws SQLException;
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 31;
        double seconds = args.length > 1 ? Double.parseDouble(args[1]) : 1.0;
        int workers = args.length > 2 ? Integer.parseInt(args[2]) : DEFAULT_WORKERS;
        String only = args.length > 3 ? args[3] : "";
        Postgres postgres = TestServers.postgres();
        System.out.printf("instrumentation overhead: a RaceLab run (%d worker%s, %s, no gates) beside a raw "
                        + "JDBC client sending what a plain program sends; %d rounds of ~%.1f s each after one to warm up, "
                        + "alternating who goes first; %d cores; heap %s; %s%n", workers, workers == 1 ? "" : "s",
                OBSERVE ? "observing the server" : "no observers", rounds,
                seconds, Runtime.getRuntime().availableProcessors(), heap(), postgres.describe());
        System.out.println("statements/op: what pgjdbc sends per operation with one worker, RaceLab | raw; "
                + "JVM µs/op: this process's CPU per operation, set-up included, RaceLab | raw (median); "
                + "ratio: RaceLab ops/s ÷ raw ops/s, the median of the rounds, with its 95% interval (bootstrap) "
                + "and the worst round");
        System.out.printf("%-28s %10s %13s %13s %13s %11s %6s %13s %6s %5s  %s%n", "lab/strategy", "ops/worker",
                "statements/op", "JVM µs/op", "RaceLab ops/s", "raw ops/s", "ratio", "95% interval", "min", "load",
                "≥ " + GOAL);
        for (Lab lab : new Labs(TestServers.backends()).all()) {
            if (!lab.services().contains(Service.POSTGRES)) {
                continue;
            }
            for (Strategy strategy : lab.strategies()) {
                String name = lab.id() + "/" + strategy.id();
                if (!name.startsWith(only)) {
                    continue;
                }
                RawTwin twin = TWINS.get(name);
                if (twin == null) {
                    System.out.printf("%-28s no raw twin written for it: not measured%n", name);
                    continue;
                }
                measure(postgres, lab, strategy, twin, name, workers, rounds, seconds);
            }
        }
    }

    private static void measure(Postgres postgres, Lab lab, Strategy strategy, RawTwin twin, String name,
                                int workers, int rounds, double seconds) throws Exception {
        String statements = statementsPerOp(postgres, lab, strategy, twin);

        // Warm-up, which also sizes the rounds: a short raw round to guess the rate (start-up
        // weighs on it), then one of each at the guess, which sizes the rest.
        int ops = opsFor(seconds, raw(postgres, twin, workers, SIZING_OPS), workers);
        racelab(lab, strategy, workers, ops);
        ops = opsFor(seconds, raw(postgres, twin, workers, ops), workers);

        int n = ops;
        Side ours = () -> racelab(lab, strategy, workers, n);
        Side theirs = () -> raw(postgres, twin, workers, n);
        double[] ourRates = new double[rounds];
        double[] theirRates = new double[rounds];
        double[] ourCpu = new double[rounds];
        double[] theirCpu = new double[rounds];
        double[] ratios = new double[rounds];
        for (int round = 0; round < rounds; round++) {
            boolean oursFirst = round % 2 == 0;
            settle(postgres);
            Sample first = sample(workers * ops, oursFirst ? ours : theirs);
            settle(postgres);
            Sample second = sample(workers * ops, oursFirst ? theirs : ours);
            Sample our = oursFirst ? first : second;
            Sample their = oursFirst ? second : first;
            ourRates[round] = our.opsPerSec();
            theirRates[round] = their.opsPerSec();
            ourCpu[round] = our.jvmMicrosPerOp();
            theirCpu[round] = their.jvmMicrosPerOp();
            ratios[round] = our.opsPerSec() / their.opsPerSec();
        }
        double ratio = median(ratios);
        double[] interval = medianInterval(ratios);
        System.out.printf("%-28s %10d %13s %13s %,13.0f %,11.0f %6.3f %13s %6.3f %5.1f  %s%n", name, ops, statements,
                String.format("%.1f | %.1f", median(ourCpu), median(theirCpu)), median(ourRates), median(theirRates),
                ratio, String.format("%.3f–%.3f", interval[0], interval[1]), Arrays.stream(ratios).min().orElseThrow(),
                JVM.getSystemLoadAverage(), ratio >= GOAL ? "yes" : "NO");
    }

    /** One side of a round: runs it and answers its ops/s. */
    @FunctionalInterface
    private interface Side {
        double run() throws Exception;
    }

    /** A side's round: its rate, and the CPU this JVM spent on it (set-up included) per operation. */
    private record Sample(double opsPerSec, double jvmMicrosPerOp) {
    }

    private static Sample sample(long operations, Side side) throws Exception {
        long cpu = JVM.getProcessCpuTime();
        double rate = side.run();
        return new Sample(rate, (JVM.getProcessCpuTime() - cpu) / 1e3 / operations);
    }

    /**
     * Before each side: RaceLab's tables vacuumed and the server's dirty pages written (where the
     * login may), the JVM's garbage collected, a moment's rest: no side pays for the dead rows,
     * pages or garbage the other left, which otherwise swing a round by a tenth either way.
     */
    private static void settle(Postgres postgres) throws Exception {
        try (Connection c = postgres.connect("bench-settle"); Statement s = c.createStatement()) {
            List<String> tables = new ArrayList<>();
            try (ResultSet rs = s.executeQuery("SELECT format('%I.%I', n.nspname, c.relname) FROM pg_class c "
                    + "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'racelab' AND c.relkind = 'r'")) {
                while (rs.next()) {
                    tables.add(rs.getString(1));
                }
            }
            if (!tables.isEmpty()) {
                s.execute("VACUUM " + String.join(", ", tables));
            }
            try {
                s.execute("CHECKPOINT");
            } catch (SQLException notPermitted) {
                // An external server may not let this login checkpoint; vacuuming is what matters most.
            }
        }
        System.gc();
        Thread.sleep(SETTLE_MILLIS);
    }

    /** The heap's sizes, "fixed at 2048 MB" when it starts at its maximum (as {@code scripts/bench} runs it). */
    private static String heap() {
        java.lang.management.MemoryUsage heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
        long init = heap.getInit() >> 20;
        long max = heap.getMax() >> 20;
        return init >= max ? "fixed at " + max + " MB" : init + " MB growing to " + max + " MB";
    }

    private static int opsFor(double seconds, double rate, int workers) {
        return (int) Math.max(SIZING_OPS, Math.round(seconds * rate / workers));
    }

    /**
     * One RaceLab run; its workers' ops/s. No gate delays: the lab's preset ones (the counter's
     * before-read and after-read sleeps) are not in the raw twin, and would be measured instead of
     * the instrumentation.
     */
    private static double racelab(Lab lab, Strategy strategy, int workers, int ops) throws Exception {
        Run run = new Run(lab, RunSpec.defaults(lab).withStrategy(strategy.id()).withWorkers(workers).withOps(ops)
                .withGates(GatePlan.NONE).withTimeout(Duration.ofSeconds(60)).withObserve(OBSERVE), Clock.system());
        run.start();
        Outcome outcome = run.awaitOutcome(RUN_WAIT);
        if (outcome.verdict() == Verdict.ERROR || outcome.verdict() == Verdict.STUCK) {
            throw new IllegalStateException(lab.id() + "/" + strategy.id() + ": " + outcome.banner());
        }
        return outcome.metrics().get("opsPerSec").doubleValue();
    }

    /**
     * One raw round on rows of its own (seeded and forgotten with the lab's statements, under a run
     * id of its own in {@code racelab}); its ops/s, timed like a run's workers: connections open
     * before the clock starts, each thread closing its own before it ends.
     */
    private static double raw(Postgres postgres, RawTwin twin, int workers, int ops) throws Exception {
        String run = "raw-" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt());
        List<Connection> connections = new ArrayList<>();
        try (Connection admin = postgres.connect("raw-setup")) {
            withRunId(admin, twin.sql().get("forget"), run);
            withRunId(admin, twin.sql().get("seed"), run);
            try {
                List<RawScript> scripts = new ArrayList<>();
                for (int i = 0; i < workers; i++) {
                    Connection c = postgres.connect("raw-" + (i + 1));
                    connections.add(c);
                    if (twin.isolation() != Connection.TRANSACTION_NONE) {
                        c.setTransactionIsolation(twin.isolation());
                    }
                    scripts.add(twin.scripts().open(c, run, i, workers));
                }
                AtomicReference<Throwable> failure = new AtomicReference<>();
                List<Thread> threads = new ArrayList<>();
                long start = System.nanoTime();
                for (int i = 0; i < workers; i++) {
                    RawScript script = scripts.get(i);
                    Connection own = connections.get(i);
                    Thread thread = new Thread(() -> {
                        // Closes its connection when done, in the time, as a RaceLab worker closes its session.
                        try (own) {
                            for (int n = 0; n < ops; n++) {
                                script.operation(n);
                            }
                        } catch (Throwable e) {
                            failure.compareAndSet(null, e);
                        }
                    }, "raw-" + (i + 1));
                    thread.setDaemon(true);
                    threads.add(thread);
                    thread.start();
                }
                for (Thread thread : threads) {
                    thread.join();
                }
                long elapsed = System.nanoTime() - start;
                if (failure.get() != null) {
                    throw new IllegalStateException("the raw client failed", failure.get());
                }
                return (double) workers * ops * 1e9 / elapsed;
            } finally {
                for (Connection c : connections) {
                    c.close();
                }
                withRunId(admin, twin.sql().get("forget"), run);
            }
        }
    }

    /** "RaceLab | raw" statements per operation with one worker, as pgjdbc logs them on the way out. */
    private static String statementsPerOp(Postgres postgres, Lab lab, Strategy strategy, RawTwin twin)
            throws Exception {
        try (SentStatements counter = new SentStatements()) {
            racelab(lab, strategy, 1, COUNTING_OPS);
            raw(postgres, twin, 1, COUNTING_OPS);
            return format(counter.sentBy(lab.workerName(0))) + " | " + format(counter.sentBy("raw-1"));
        }
    }

    private static String format(long statements) {
        double perOp = (double) statements / COUNTING_OPS;
        return perOp == Math.rint(perOp) ? String.valueOf((long) perOp) : String.format("%.1f", perOp);
    }

    private static void inTransaction(Connection c, Body body) throws SQLException {
        c.setAutoCommit(false);
        try {
            body.run();
            c.commit();
        } catch (SQLException e) {
            c.rollback();
            throw e;
        } finally {
            c.setAutoCommit(true);
        }
    }

    private static long queryLong(Connection c, String sql, String run) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, run);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    private static void update(Connection c, String sql, long value, String run) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setLong(1, value);
            ps.setString(2, run);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                rs.getLong(1);
            }
        }
    }

    /** The fencing lab's price for client {@code index}'s operation {@code n}. */
    private static long price(int index, int n, int workers) {
        return 100 + (long) n * workers + index + 1;
    }

    private static void writePrice(Connection c, String statement, long price, long token, String run)
            throws SQLException {
        boolean fenced = statement.equals("write-price-if-newer");
        try (PreparedStatement ps = c.prepareStatement(FENCING.get(statement))) {
            ps.setLong(1, price);
            ps.setLong(2, token);
            ps.setString(3, run);
            if (fenced) {
                ps.setLong(4, token);
            }
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                    rs.getLong(1);
                }
            }
        }
    }

    private static void withRunId(Connection c, String sql, String run) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, run);
            ps.execute();
        }
    }

    /**
     * Where the median of {@code ratios} would fall, 95 times in 100, had the rounds come out
     * differently: the 2.5th and 97.5th percentiles of the medians of 2,000 resamplings (with a fixed
     * seed, so the figure does not move between printings of the same rounds).
     */
    private static double[] medianInterval(double[] ratios) {
        java.util.SplittableRandom random = new java.util.SplittableRandom(42);
        double[] medians = new double[2_000];
        double[] resample = new double[ratios.length];
        for (int b = 0; b < medians.length; b++) {
            for (int i = 0; i < resample.length; i++) {
                resample[i] = ratios[random.nextInt(ratios.length)];
            }
            medians[b] = median(resample);
        }
        Arrays.sort(medians);
        return new double[] {medians[(int) (medians.length * 0.025)], medians[(int) (medians.length * 0.975) - 1]};
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int mid = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
    }
}
