package dev.racelab.labs.file;

import dev.racelab.backend.Backends;
import dev.racelab.backend.PgLockObserver;
import dev.racelab.backend.PgSessions;
import dev.racelab.backend.PgWaits;
import dev.racelab.backend.Postgres;
import dev.racelab.labs.support.Survivors;
import dev.racelab.backend.Redis;
import dev.racelab.engine.Gate;
import dev.racelab.engine.LabWorker;
import dev.racelab.engine.Outcome;
import dev.racelab.engine.RunSetup;
import dev.racelab.engine.RunSummary;
import dev.racelab.engine.Scenario;
import dev.racelab.engine.ServerObserver;
import dev.racelab.engine.ServerWaits;
import dev.racelab.engine.Service;
import dev.racelab.engine.Verdict;
import dev.racelab.engine.WorkerContext;
import dev.racelab.isolation.ServerReach;
import dev.racelab.isolation.Session;
import dev.racelab.isolation.Spec;
import dev.racelab.isolation.Step;
import dev.racelab.isolation.run.IsolationFailure;
import dev.racelab.isolation.run.IsolationRun;
import dev.racelab.isolation.run.SpecSandbox;
import dev.racelab.labfile.LabFile;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

import java.sql.Connection;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * One run of a lab file: a scratch database and a login that owns only it (as an isolation spec's,
 * {@link SpecSandbox}), the run's own Redis keys ({@code racelab:<run>:…}), the file's setup, a
 * {@link FileWorker} per worker, and at the end the invariants, whose first failure names the
 * verdict. Closing runs the teardown and drops the database and the keys.
 */
final class FileScenario implements Scenario {

    private static final int REDIS_TIMEOUT_MILLIS = 10_000;

    private final LabFile file;
    private final RunSetup setup;
    private final Map<String, Gate> gates;
    /** Each switch's choice in this run, by name (the strategy's too, when the file has that switch). */
    private final Map<String, String> chosen = new HashMap<>();
    private final Postgres postgres;
    private final Redis redis;
    private final SpecSandbox sandbox;
    /** The workers' sessions in the sandbox, by pid: the lock lane's and the schedule's way to name them. */
    private final PgSessions sessions;
    /** Asks the server which workers wait for a lock, for a scheduled run; null without PostgreSQL. */
    private final PgWaits waits;
    /** The sandbox as the run's sessions reach it. */
    private final Postgres inSandbox;
    /** The run's own PostgreSQL session in the sandbox: setup, invariants, teardown. */
    private final Connection owner;
    /** The run's own Redis connection: setup, invariants, teardown, the keys' clean-up. */
    private final Jedis keys;
    private final FileSteps steps;
    private final List<FileWorker> workers = new ArrayList<>();
    /** Keeps a worker that crashed on its lane until the others are done. */
    private final Survivors survivors;
    /** Each session's operations in this run: {@code --ops} when the sessions agree, else the file's. */
    private final Map<String, Integer> ops = new HashMap<>();
    /** The words an expression may use: {@code workers}, {@code operations}. */
    private final Map<String, Long> totals;

    FileScenario(LabFile file, Backends backends, RunSetup setup, Map<String, Gate> gates,
                 dev.racelab.engine.LabProfile profile) throws Exception {
        Set<Service> services = profile.services();
        this.file = file;
        this.setup = setup;
        this.gates = gates;
        for (LabFile.Choice choice : file.switches()) {
            chosen.put(choice.name(), FileLab.chosen(choice.name(), setup, profile));
        }
        this.postgres = services.contains(Service.POSTGRES) ? backends.postgres() : null;
        this.redis = services.contains(Service.REDIS) ? backends.redis() : null;
        boolean uniform = FileLab.uniformOps(file).isPresent();
        long operations = 0;
        for (LabFile.LabSession session : file.sessions()) {
            int ops = uniform ? setup.ops() : session.ops();
            this.ops.put(session.name(), ops);
            operations += (long) FileLab.workers(file, session, setup.workers()) * ops;
        }
        this.totals = Map.of("workers", (long) setup.workers(), "operations", operations);
        this.steps = new FileSteps(setup.runId());
        this.survivors = new Survivors(setup.workers());
        SpecSandbox made = null;
        Connection session = null;
        Jedis connection = null;
        try {
            if (postgres != null) {
                Spec spec = asSpec(file);
                ServerReach reach = ServerReach.of(spec);
                Optional<String> refused = IsolationRun.refusal(spec, reach);
                if (refused.isPresent()) {
                    throw new IsolationFailure(refused.get());
                }
                // The workers, the setup session, the lock lane's, the invariants' lane's and the schedule's.
                made = SpecSandbox.open(postgres, spec, reach, SpecSandbox.Access.CONFINED, setup.workers() + 4);
                session = postgres.connectAs(made.sessions(), "setup");
            }
            if (redis != null) {
                connection = redis.open("setup", REDIS_TIMEOUT_MILLIS);
            }
            for (LabFile.Block block : file.setup()) {
                if (runs(block.when())) {
                    steps.run(block, session, connection, Map.of("run", setup.runId()));
                }
            }
        } catch (Exception | Error e) {
            release(made, session, connection);
            throw e;
        }
        this.sandbox = made;
        this.owner = session;
        this.keys = connection;
        this.inSandbox = made == null ? null : postgres.at(made.sessions());
        this.sessions = made == null ? null : new PgSessions(inSandbox, setup.runId(), setup.workers(),
                PgSessions.Mode.dedicated(), setup.threads().factory("pg-pool"));
        this.waits = made == null ? null : new PgWaits(inSandbox, sessions);
    }

    @Override
    public List<ServerObserver> observers() {
        List<ServerObserver> observers = new ArrayList<>();
        if (sessions != null) {
            observers.add(new PgLockObserver(inSandbox, sessions, setup.runId(), List.of()));
        }
        if (!file.invariants().isEmpty()) {
            observers.add(new InvariantObserver(file.invariants(), steps, inSandbox, redis, setup.runId()));
        }
        List<String> named = redis == null ? List.of() : RedisKeysObserver.keysOf(file);
        if (!named.isEmpty()) {
            observers.add(new RedisKeysObserver(redis, named, steps));
        }
        return observers;
    }

    @Override
    public ServerWaits serverWaits() {
        return waits == null ? ServerWaits.NONE : waits::waiting;
    }

    /** The file's PostgreSQL text as a spec, for the sandbox to check what it reaches and to confine it. */
    private static Spec asSpec(LabFile file) {
        List<String> setups = file.setup().stream().filter(b -> b.server() == LabFile.Server.PG)
                .map(LabFile.Block::text).toList();
        List<Session> sessions = new ArrayList<>();
        for (int s = 0; s < file.sessions().size(); s++) {
            LabFile.LabSession session = file.sessions().get(s);
            List<Step> pg = new ArrayList<>();
            for (LabFile.LabStep step : session.steps()) {
                if (step.block().server() == LabFile.Server.PG) {
                    pg.add(new Step(step.name(), step.block().text(), s, step.block().line()));
                }
            }
            sessions.add(new Session(session.name(), null, pg, null));
        }
        return new Spec(file.name(), setups, null, sessions, List.of());
    }

    /** Whether a block or step under {@code when} runs with this run's choice of its switch. */
    boolean runs(LabFile.When when) {
        return when == null || !chosen.containsKey(when.switchName()) || when.runsWith(chosen.get(when.switchName()));
    }

    @Override
    public LabWorker worker(WorkerContext context) throws Exception {
        int base = 0;
        for (LabFile.LabSession session : file.sessions()) {
            int count = FileLab.workers(file, session, setup.workers());
            if (context.index() < base + count) {
                FileWorker worker = new FileWorker(this, session, ops.get(session.name()), context, context.index() - base + 1,
                        sessions == null ? null : sessions.session(context),
                        redis == null ? null : redis.open(context.name(), 0));
                workers.add(worker);
                return worker;
            }
            base += count;
        }
        throw new IllegalStateException("no session has worker " + context.name());
    }

    String runId() {
        return setup.runId();
    }

    Survivors survivors() {
        return survivors;
    }

    FileSteps steps() {
        return steps;
    }

    Gate gate(String name) {
        return gates.get(name);
    }

    /** The words an expression may use: {@code workers}, {@code operations}. */
    Map<String, Long> totals() {
        return totals;
    }

    @Override
    public Outcome judge(RunSummary summary) throws Exception {
        Map<String, Number> metrics = new LinkedHashMap<>();
        Map<String, String> values = Map.of("run", setup.runId());
        for (LabFile.Invariant invariant : file.invariants()) {
            String value = steps.run(invariant.block(), owner, keys, values);
            String expected = FileValues.eval(invariant.test().expression(), values, totals());
            java.math.BigDecimal number = FileValues.number(value);
            if (number != null) {
                metrics.put(invariant.verdict(), number);
            }
            if (!FileValues.meets(value, invariant.test(), values, totals())) {
                String said = invariant.verdict() + ": " + (value == null ? "null" : value) + " (expected "
                        + invariant.test().sign() + (expected == null ? "" : " " + expected) + ")";
                return new Outcome(Verdict.RACE, said, "The invariant \"" + invariant.verdict() + "\" does not hold "
                        + "after the run: " + invariant.block().server().word() + " { "
                        + invariant.block().text().strip().replaceAll("\\s+", " ") + " } gave " + value + ", and the "
                        + "file expects " + invariant.test() + ".", Map.of(invariant.verdict(), 1L), metrics,
                        List.of());
            }
        }
        return new Outcome(Verdict.SAFE, "every invariant held", "After the run, each of the file's invariants held: "
                + String.join(", ", file.invariants().stream().map(i -> "\"" + i.verdict() + "\"").toList()) + ".",
                Map.of(), metrics, List.of());
    }

    @Override
    public void close() throws Exception {
        try {
            // Each worker's connections closed whatever another's did; what failed is thrown after the teardown.
            Exception failed = null;
            for (FileWorker worker : workers) {
                try {
                    worker.close();
                } catch (Exception e) {
                    if (failed == null) {
                        failed = e;
                    } else {
                        failed.addSuppressed(e);
                    }
                }
            }
            if (waits != null) {
                waits.close();
            }
            if (sessions != null) {
                // Every worker's session gone from the server before the sandbox is dropped.
                sessions.close();
            }
            for (LabFile.Block block : file.teardown()) {
                if (runs(block.when())) {
                    steps.run(block, owner, keys, Map.of("run", setup.runId()));
                }
            }
            if (failed != null) {
                throw failed;
            }
        } finally {
            release(sandbox, owner, keys);
        }
    }

    /** Ends the run's own sessions, deletes its keys and drops its database (each whatever the others did). */
    private void release(SpecSandbox made, Connection session, Jedis connection) {
        try {
            if (connection != null) {
                deleteKeys(connection);
                connection.close();
            }
        } finally {
            try {
                if (session != null) {
                    session.close();
                }
            } catch (Exception ignored) {
                // Closing a session the sandbox is about to end.
            } finally {
                if (made != null) {
                    made.release();
                }
            }
        }
    }

    private void deleteKeys(Jedis connection) {
        ScanParams match = new ScanParams().match(steps.prefix() + "*").count(500);
        String cursor = ScanParams.SCAN_POINTER_START;
        do {
            ScanResult<String> page = connection.scan(cursor, match);
            if (!page.getResult().isEmpty()) {
                connection.del(page.getResult().toArray(String[]::new));
            }
            cursor = page.getCursor();
        } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
    }
}
