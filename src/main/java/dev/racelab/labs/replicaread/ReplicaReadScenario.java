package dev.racelab.labs.replicaread;

import dev.racelab.backend.PgSessions;
import dev.racelab.backend.PgStandbyPair;
import dev.racelab.backend.SqlFile;
import dev.racelab.engine.Fixture;
import dev.racelab.engine.LabWorker;
import dev.racelab.engine.Outcome;
import dev.racelab.engine.RunSetup;
import dev.racelab.engine.RunSummary;
import dev.racelab.engine.Scenario;
import dev.racelab.engine.ServerObserver;
import dev.racelab.engine.Verdict;
import dev.racelab.engine.WorkerContext;
import dev.racelab.labs.support.PgFixture;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.atomic.LongAdder;

/**
 * One run of the replica-read lab on RaceLab's primary and standby. Every operation is one client
 * writing a new version of its own row on the primary and reading it back ({@link ReplicaClient}).
 *
 * <p>The oracle: every read must see the version its client committed just before (read your own
 * writes). A read that sees an older one is a stale read, counted with how long the standby took to
 * show the write (the client looks again until it does).
 */
final class ReplicaReadScenario implements Scenario {

    static final String STALE = "stale reads";
    static final SqlFile SQL = SqlFile.load(ReplicaReadScenario.class, "replica-read.sql");
    private static final PgFixture.Tables TABLES = new PgFixture.Tables("replica-read", 1, SQL);
    /** How long the standby may take to replay the run's seeded rows before the workers start. */
    private static final long SEEDED_WITHIN_NANOS = 10_000_000_000L;

    final LongAdder reads = new LongAdder();
    final LongAdder staleReads = new LongAdder();
    final LongAccumulator longestCatchUpMicros = new LongAccumulator(Math::max, 0);
    final LongAdder commitMicros = new LongAdder();
    final LongAdder commits = new LongAdder();
    final LongAccumulator longestCommitMicros = new LongAccumulator(Math::max, 0);
    /** The first stale read, in words, for the verdict. */
    final AtomicReference<String> firstStale = new AtomicReference<>();

    private final ReplicaReadStrategy strategy;
    private final RunSetup setup;
    private final PgStandbyPair pair;
    private final PgFixture pg;
    private final Connection standbyAdmin;
    private final Stalls stalls;

    ReplicaReadScenario(PgStandbyPair pair, ReplicaReadStrategy strategy, RunSetup setup) throws Exception {
        this.pair = pair;
        this.strategy = strategy;
        this.setup = setup;
        if (pair.ours() && pair.standbyPromoted()) {
            // A run before this one promoted the standby: the pair is made anew.
            pair.renew(setup.stopping());
        }
        // Asked first: a failure on the standby is the standby's, never put down to the primary.
        setup.servers().watch(new StandbyWatch(pair.standby()));
        this.pg = new PgFixture(pair.primary(), setup, TABLES, PgSessions.Mode.dedicated());
        Connection admin = null;
        try {
            admin = pair.standby().control("standby-setup");
            this.standbyAdmin = admin;
            this.stalls = new Stalls(pair.ours(), pair.relay(), admin, setup.threads(),
                    setup.get(ReplicaReadLab.STALL_MS));
            // A run stopped by force may have left the stream held or the replay paused.
            stalls.clearLeftovers();
            checkSynchronous();
            awaitSeededOnStandby();
        } catch (Exception e) {
            if (admin != null) {
                admin.close();
            }
            pg.close();
            throw e;
        }
    }

    /**
     * A commit that waits for the standby waits only for a standby the primary names synchronous:
     * RaceLab's own is; on a pair the user named, a strategy that relies on it is refused if not.
     */
    private void checkSynchronous() throws SQLException {
        if (strategy.commitLevel().equals("local") || pair.ours()) {
            return;
        }
        String state = null;
        if (pair.standbyName().isPresent()) {
            try (PreparedStatement ps = pg.admin().prepareStatement(SQL.get("sync-state"))) {
                ps.setString(1, pair.standbyName().get());
                try (ResultSet rs = ps.executeQuery()) {
                    state = rs.next() ? rs.getString(1) : null;
                }
            }
        }
        if (!"sync".equals(state) && !"quorum".equals(state)) {
            throw new IllegalStateException(strategy.id() + " needs the standby to be synchronous on the primary "
                    + "(named in its synchronous_standby_names); " + pair.primary().describe() + " does not say so of "
                    + "it, so its commits would wait for no standby");
        }
    }

    /** The standby has replayed the run's tables and seeded rows: a first read finds the row, as it was. */
    private void awaitSeededOnStandby() throws SQLException, InterruptedException {
        String seeded;
        try (Statement s = pg.admin().createStatement(); ResultSet rs = s.executeQuery(SQL.get("flushed"))) {
            rs.next();
            seeded = rs.getString(1);
        }
        long deadline = System.nanoTime() + SEEDED_WITHIN_NANOS;
        try (PreparedStatement ps = standbyAdmin.prepareStatement(SQL.get("replayed-past"))) {
            ps.setString(1, seeded);
            while (true) {
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    if (rs.getBoolean(1)) {
                        return;
                    }
                }
                if (System.nanoTime() > deadline || setup.stopping().getAsBoolean()) {
                    throw new SQLException("the standby did not replay the run's rows within "
                            + SEEDED_WITHIN_NANOS / 1_000_000_000L + " s");
                }
                Thread.sleep(2);
            }
        }
    }

    @Override
    public LabWorker worker(WorkerContext context) throws SQLException {
        return new ReplicaClient(this, context, pg.session(context), pair.standby().connect(context.name()),
                strategy, setup.runId(), stalls);
    }

    @Override
    public List<ServerObserver> observers() {
        return List.of(new ReplicationObserver(pair));
    }

    @Override
    public Outcome judge(RunSummary summary) {
        long all = reads.sum();
        long stale = staleReads.sum();
        Map<String, Number> metrics = new LinkedHashMap<>();
        metrics.put("reads", all);
        metrics.put("staleReads", stale);
        metrics.put("longestCatchUpMs", longestCatchUpMicros.get() / 1000.0);
        long n = commits.sum();
        double meanCommitMs = n == 0 ? 0 : commitMicros.sum() / 1000.0 / n;
        metrics.put("meanCommitMs", Math.round(meanCommitMs * 100) / 100.0);
        metrics.put("longestCommitMs", longestCommitMicros.get() / 1000.0);
        String commitWords = String.format("commits took %.1f ms on average (longest %.0f ms)", meanCommitMs,
                longestCommitMicros.get() / 1000.0);
        if (stale > 0) {
            return new Outcome(Verdict.RACE, stale + " of " + all + " reads stale: a client did not see its own write",
                    firstStale.get() + (stalls.promoted()
                            ? ". The standby was promoted: a second primary, which follows the first no more, so "
                                    + "every read there after it is stale for good; "
                            : ". The standby had not replayed the commit yet; the longest a client waited to see "
                                    + "its own write was " + millis(longestCatchUpMicros.get()) + "; ")
                            + commitWords + ".",
                    Map.of(STALE, stale), metrics, List.of());
        }
        String where = switch (strategy.reads()) {
            case PRIMARY -> "read on the primary";
            case STANDBY_AFTER_LSN -> "read on the standby, each once it had replayed its client's commit";
            case STANDBY -> "read on the standby";
        };
        return new Outcome(Verdict.SAFE, "every read saw its client's own write (" + all + " reads)",
                "All " + all + " reads returned the version their client had just committed (" + where + "); "
                        + commitWords + ".",
                Map.of(), metrics, List.of());
    }

    /** A short span in words: "0.4 ms", "12 ms". */
    static String millis(long micros) {
        return micros < 10_000 ? String.format("%.1f ms", micros / 1000.0) : Math.round(micros / 1000.0) + " ms";
    }

    @Override
    public List<Fixture> fixtures() {
        return List.of(pg);
    }

    @Override
    public void close() throws Exception {
        try {
            stalls.close();
        } finally {
            try {
                standbyAdmin.close();
            } finally {
                pg.close();
            }
        }
    }
}
