package dev.racelab.labs.advisory;

import dev.racelab.backend.AdvisoryKey;
import dev.racelab.backend.PgSessions;
import dev.racelab.backend.Postgres;
import dev.racelab.engine.Fixture;
import dev.racelab.engine.LabWorker;
import dev.racelab.engine.Outcome;
import dev.racelab.engine.RunSetup;
import dev.racelab.engine.RunSummary;
import dev.racelab.engine.Scenario;
import dev.racelab.engine.ServerObserver;
import dev.racelab.engine.WorkerContext;
import dev.racelab.labs.support.PgFixture;
import dev.racelab.labs.support.Survivors;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One run of the advisory-lock lab: every worker, once per operation, takes the lock on its
 * invoice the strategy's way, does the work, and lets the lock go; all through one HikariCP pool.
 *
 * <p>This class wires the run: the invoices' rows and their keys, the pool, one worker per lane
 * ({@link PooledWorker}, {@link PinnedWorker} or {@link TransactionWorker}, after the strategy),
 * the lock observer, and the run's {@link LockLedger}, which its workers write and its {@link
 * AdvisoryOracle} (what is violated) and {@link AdvisoryVerdict} (the outcome) read. It reads
 * {@code pg_locks} for the verdict, and answers the verdict's questions, on RaceLab's own session.
 */
final class AdvisoryScenario implements Scenario {

    static final String LEFT_BEHIND = "locks left behind";
    static final String OVERLAPS = "overlapping critical sections";
    static final String ORPHANED = "orphaned locks";

    private static final PgFixture.Tables TABLES = new PgFixture.Tables("advisory-lock", 1, LockCalls.SQL);

    private final AdvisoryStrategy strategy;
    private final RunSetup setup;
    private final PgFixture pg;
    private final AdvisoryLockLab.Acquire acquire;
    private final LockKeys.Resources resources;
    /** Each resource's lock key in this run. */
    private final Map<String, AdvisoryKey> keyOf = new LinkedHashMap<>();
    private final AdvisoryWorker.Setup workers;
    private final AdvisoryVerdict verdict;

    AdvisoryScenario(Postgres postgres, AdvisoryStrategy strategy, RunSetup setup) throws SQLException {
        this.strategy = strategy;
        this.setup = setup;
        this.acquire = setup.get(AdvisoryLockLab.ACQUIRE);
        this.resources = setup.get(AdvisoryLockLab.RESOURCES);
        LockKeys keys = setup.get(AdvisoryLockLab.KEYS);
        for (String name : resources.names()) {
            keyOf.put(name, keys.of(setup.runId(), name));
        }
        LockLedger ledger = new LockLedger();
        this.workers = new AdvisoryWorker.Setup(strategy, acquire, setup.get(AdvisoryLockLab.REENTRANCY).locks(),
                setup.get(AdvisoryLockLab.REENTRANCY).unlocks(), setup.get(AdvisoryLockLab.WORK_MS),
                TimeUnit.MILLISECONDS.toNanos(setup.get(AdvisoryLockLab.PATIENCE_MS)), setup.ops(), setup.runId(),
                ledger, new AdvisoryOracle(ledger, keyOf), new Survivors(setup.workers()));
        this.verdict = new AdvisoryVerdict(ledger, keyOf, resources, setup.workers(),
                setup.get(AdvisoryLockLab.POOL_SIZE), new OwnSession());
        this.pg = new PgFixture(postgres, setup, TABLES, PgSessions.Mode.pooled(setup.get(AdvisoryLockLab.POOL_SIZE)));
        try (PreparedStatement ps = pg.admin().prepareStatement(LockCalls.SQL.get("add-resource"))) {
            for (String name : resources.names()) {
                ps.setString(1, setup.runId());
                ps.setString(2, name);
                ps.setString(3, keyOf.get(name).toString());
                ps.executeUpdate();
            }
        } catch (SQLException | RuntimeException e) {
            pg.close();
            throw e;
        }
    }

    @Override
    public LabWorker worker(WorkerContext context) throws SQLException {
        PgSessions.Session session = pg.session(context);
        String resource = resources.of(context.index());
        AdvisoryKey key = keyOf.get(resource);
        return switch (strategy) {
            case SESSION_POOLED -> new PooledWorker(context, session, resource, key, workers);
            case SESSION_PINNED -> new PinnedWorker(context, session, resource, key, workers);
            case XACT_LOCK -> new TransactionWorker(context, session, resource, key, workers);
        };
    }

    @Override
    public List<ServerObserver> observers() {
        return List.of(pg.lockObserver());
    }

    @Override
    public Outcome judge(RunSummary summary) throws SQLException {
        return verdict.judge(pg.advisoryLocks());
    }

    /** Only blocking locks wait in PostgreSQL; with tries, a quiet run is the engine's to diagnose. */
    @Override
    public Outcome deadlock(RunSummary summary) throws SQLException {
        if (acquire != AdvisoryLockLab.Acquire.BLOCKING) {
            return null;
        }
        return verdict.deadlock(pg.advisoryLocks());
    }

    @Override
    public Outcome diagnose(RunSummary summary) throws SQLException {
        return verdict.diagnose(pg.advisoryLocks());
    }

    @Override
    public List<Fixture> fixtures() {
        return List.of(pg);
    }

    /** A pooled session's name as the run shows it: {@code pool-4711}, after its backend pid. */
    static String sessionName(int pid) {
        return "pool-" + pid;
    }

    /** The verdict's questions, asked on RaceLab's own session. */
    private final class OwnSession implements AdvisoryVerdict.Admin {

        @Override
        public boolean refusedNow(AdvisoryKey key) throws SQLException {
            Connection admin = pg.admin();
            if (LockCalls.call(admin, "try-lock", key)) {
                LockCalls.call(admin, "unlock", key);
                return false;
            }
            return true;
        }

        @Override
        public long workDone() throws SQLException {
            try (PreparedStatement ps = pg.admin().prepareStatement(LockCalls.SQL.get("uses"))) {
                ps.setString(1, setup.runId());
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getLong(1);
                }
            }
        }
    }
}
