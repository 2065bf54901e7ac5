package dev.racelab.labs.file;

import dev.racelab.engine.Printable;
import dev.racelab.backend.PgSessions;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.LabWorker;
import dev.racelab.engine.WorkerContext;
import dev.racelab.labfile.LabFile;
import redis.clients.jedis.Jedis;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One worker of a lab file's session: each operation does the session's items in order (steps
 * under the run's strategy, gates, {@code let}s), keeping the values it captures for the rest of
 * the operation, and goes back where an {@code until} says while its test fails. A statement
 * PostgreSQL aborts with a serialization failure or a deadlock rolls back, and its value goes to
 * the next step with an {@code until}. One connection to each server, for all its operations.
 */
final class FileWorker implements LabWorker {

    /** Serialization failure and deadlock: the transaction is rolled back, and it may be tried again. */
    private static final Set<String> RETRYABLE = Set.of("40001", "40P01");

    private final FileScenario scenario;
    private final LabFile.LabSession session;
    private final int ops;
    private final WorkerContext context;
    private final int number;
    /** The worker's own session in the sandbox, known to the lock lane and the schedule by its pid. */
    private final PgSessions.Session pgSession;
    private final Connection pg;
    /** Crashed at a fault gate: out of the run, its later operations do nothing. */
    private boolean crashed;
    /** Each step's name and text, as its STEP_SENT says it ({@code take: UPDATE tokens …}). */
    private final Map<LabFile.LabStep, String> sent = new HashMap<>();
    private final Jedis redis;

    FileWorker(FileScenario scenario, LabFile.LabSession session, int ops, WorkerContext context, int number,
               PgSessions.Session pgSession, Jedis redis) throws java.sql.SQLException {
        this.scenario = scenario;
        this.session = session;
        this.ops = ops;
        this.context = context;
        this.number = number;
        this.pgSession = pgSession;
        this.pg = pgSession == null ? null : pgSession.borrow().connection();
        this.redis = redis;
        for (LabFile.LabStep step : session.steps()) {
            sent.put(step, step.name() + ": " + Printable.excerpt(step.block().text().strip().replaceAll("\\s+", " "), 80));
        }
    }

    @Override
    public void operation(int n) throws Exception {
        if (n >= ops || crashed) {
            return;
        }
        Map<String, String> values = new HashMap<>();
        values.put("worker", String.valueOf(number));
        values.put("op", String.valueOf(n + 1));
        values.put("run", scenario.runId());
        Map<String, Long> totals = scenario.totals();
        Map<String, Integer> tries = new HashMap<>();
        List<LabFile.Item> items = session.items();
        String failed = null;
        int i = 0;
        while (i < items.size()) {
            LabFile.Item item = items.get(i);
            if (item instanceof LabFile.Gate gate) {
                dev.racelab.engine.Gate at = scenario.gate(gate.name());
                if (!at.isFault()) {
                    context.gate(at);
                } else if (context.fault(at)) {
                    crash(gate.name());
                    return;
                }
                i++;
                continue;
            }
            if (item instanceof LabFile.Let let) {
                String value = FileValues.eval(let.expression(), values, totals);
                if (value == null) {
                    values.remove(let.name());
                } else {
                    values.put(let.name(), value);
                }
                i++;
                continue;
            }
            LabFile.LabStep step = (LabFile.LabStep) item;
            if (!scenario.runs(step.when())) {
                i++;
                continue;
            }
            String value;
            if (failed != null) {
                value = failed;
                failed = null;
            } else {
                try {
                    context.mark(EventKind.STEP_SENT, sent.get(step), 0);
                    value = scenario.steps().run(step.block(), pg, redis, values);
                    context.mark(EventKind.STEP_RESULT, step.name() + (value == null ? "" : " → " + value), 0);
                } catch (SQLException e) {
                    int next = RETRYABLE.contains(e.getSQLState()) ? nextUntil(i) : -1;
                    if (next < 0) {
                        throw e;
                    }
                    context.mark(EventKind.STEP_FAILED, step.name() + ": " + e.getSQLState(), 0);
                    rollback();
                    failed = e.getSQLState();
                    i = next;
                    continue;
                }
            }
            if (step.capture() != null) {
                values.put(step.capture(), value);
            }
            if (step.until() != null && !FileValues.meets(value, step.until().test(), values, totals)) {
                if (tries.merge(step.name(), 1, Integer::sum) >= step.until().max()) {
                    context.mark(EventKind.NOTE, step.name() + " never met " + step.until().test() + " in "
                            + step.until().max() + " tries: the operation ends", 0);
                    return;
                }
                context.mark(EventKind.RETRY, step.until().from(), 0);
                if (step.until().everyMillis() > 0) {
                    context.backOff(step.until().everyMillis() * 1_000_000L);
                }
                i = indexOf(step.until().from());
                continue;
            }
            i++;
        }
    }

    /** The index of the first step after {@code from} with an {@code until} that runs under this run's strategy, or -1. */
    private int nextUntil(int from) {
        List<LabFile.Item> items = session.items();
        for (int i = from; i < items.size(); i++) {
            if (items.get(i) instanceof LabFile.LabStep step && step.until() != null && scenario.runs(step.when())) {
                return i;
            }
        }
        return -1;
    }

    private int indexOf(String step) {
        List<LabFile.Item> items = session.items();
        for (int i = 0; i < items.size(); i++) {
            if (items.get(i) instanceof LabFile.LabStep s && s.name().equals(step)) {
                return i;
            }
        }
        throw new IllegalStateException("no step " + step + " in session " + session.name());
    }

    private void rollback() throws SQLException {
        try (Statement statement = pg.createStatement()) {
            statement.execute("ROLLBACK");
        }
    }

    @Override
    public void abort() {
        if (pgSession != null) {
            pgSession.abort();
        }
        if (redis != null) {
            redis.getConnection().close();
        }
    }

    /**
     * At an armed crash gate: the worker's connections are cut, as a process that dies cuts them
     * (PostgreSQL rolls back its transaction and lets its locks go; what it set in Redis stays), and
     * it stays on its lane, out of the run, until the others are done.
     */
    private void crash(String gate) throws InterruptedException {
        crashed = true;
        abort();
        context.mark(EventKind.FAULT, gate, 0);
        context.state(dev.racelab.engine.ActorState.FAILED, "crashed at " + gate + ": its connections cut, "
                + "nothing cleaned up");
        scenario.survivors().done();
        scenario.survivors().outlast(context, () -> { });
    }

    @Override
    public void close() throws Exception {
        if (!crashed) {
            scenario.survivors().done();
        }
        try {
            if (redis != null) {
                redis.close();
            }
        } finally {
            if (pgSession != null) {
                pgSession.close();
            }
        }
    }
}
