package dev.racelab.labs.support;

import dev.racelab.backend.BackendException;
import dev.racelab.backend.PgLockObserver;
import dev.racelab.backend.PgSchema;
import dev.racelab.backend.PgSessions;
import dev.racelab.backend.PgValueObserver;
import dev.racelab.backend.PgWaits;
import dev.racelab.backend.Postgres;
import dev.racelab.backend.SqlFile;
import dev.racelab.engine.Fixture;
import dev.racelab.engine.RunSetup;
import dev.racelab.engine.RunThreads;
import dev.racelab.engine.ServerWaits;
import dev.racelab.engine.ServerWatch;
import dev.racelab.engine.Service;
import dev.racelab.engine.WorkerContext;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * One run's PostgreSQL, as a scenario holds it: a part the scenario composes (alone, or beside a
 * Redis fixture), not a class it extends.
 *
 * <p><b>Order.</b> The scenario creates the fixture in its constructor, on the run's supervisor
 * thread: that installs the lab's tables in {@code racelab} ({@link PgSchema}), deletes then
 * seeds the run's rows (keyed by the run's id, so runs sharing a server never meet; a class's
 * participant's run uses its host's rows, {@link RunSetup#joined}), and opens
 * the pool if the lab's {@link PgSessions.Mode} pools for this many workers. Then {@link
 * #session} once per worker (the worker closes it, and aborts it from {@code LabWorker.abort}),
 * {@link #lockObserver}/{@link #valueObserver} for the scenario's observers (the engine closes
 * those), {@link #admin} to judge, {@link #explain} for failures; and from the scenario's {@code
 * close}, {@link #close}.
 *
 * <p><b>Ending.</b> {@link #close} closes any session a worker left open and the pool, makes sure
 * no session of the run is left on the server (terminating any that linger, so no lock survives
 * the run), deletes the run's rows and closes the admin session. A scenario that opens more after
 * the fixture and fails doing so closes the fixture itself: the engine only closes scenarios it got.
 *
 * <p>The lab's SQL file provides {@code create}/{@code drop} (see {@link PgSchema}), {@code seed}
 * (one parameter: the run id) and {@code forget} (one parameter: the run id; also clears rows
 * older than a day that a killed RaceLab left behind).
 */
public final class PgFixture implements Fixture, ServerWatch.Check {

    /**
     * A lab's tables.
     *
     * @param component the name the installed version is kept under in {@code racelab.schema_versions}
     * @param version   bumped whenever {@code create} changes, so the tables are made anew
     * @param sql       the lab's statements, {@code create}, {@code drop}, {@code seed} and {@code forget} among them
     */
    public record Tables(String component, int version, SqlFile sql) {
    }

    /**
     * A row whose lock holder the lock observer names.
     *
     * @param label         what the timeline calls it: {@code the counter row}
     * @param xmaxStatement the lab's statement (one parameter, the run id) returning the row's xmax as bigint
     */
    public record Row(String label, String xmaxStatement) {
    }

    private final Postgres postgres;
    private final SqlFile sql;
    private final String runId;
    /** A class's participant's: the rows are its host's, which seeds and forgets them. */
    private final boolean joined;
    private final Connection admin;
    private final PgSessions sessions;
    /** Who of the workers waits for a lock: asked by a scheduled run only. */
    private final PgWaits waits;
    /** Set when a probe found the server silent; read by whoever closes. */
    private volatile boolean silent;
    /** How often the idle admin session is looked at: a session the server ended is known within this. */
    private static final Duration ADMIN_WATCH_EVERY = Duration.ofMillis(250);
    private final RunThreads.Periodic adminWatch;
    /** Set by the watch when the server ended the admin session; read by whoever closes. */
    private volatile boolean adminGone;

    /** Installs the tables, seeds the run's rows and readies the workers' sessions; see the class comment. */
    public PgFixture(Postgres postgres, RunSetup setup, Tables tables, PgSessions.Mode mode) throws SQLException {
        this.postgres = postgres;
        this.sql = tables.sql();
        this.runId = setup.runId();
        this.joined = setup.joined();
        // Watched from the start: a server that fails or refuses the set-up fails the run as itself.
        setup.servers().watch(this);
        this.admin = postgres.control("setup");
        try {
            PgSchema.ensure(admin, tables.component(), tables.version(), sql);
            if (!setup.joined()) {
                runWithId("forget");
                runWithId("seed");
            }
            this.sessions = new PgSessions(postgres, runId, setup.workers(), mode, setup.threads().factory("pg-pool"));
            this.waits = new PgWaits(postgres, sessions);
            this.adminWatch = setup.threads().every("setup-session", ADMIN_WATCH_EVERY, this::adminStillThere);
        } catch (SQLException | RuntimeException e) {
            admin.close();
            throw e;
        }
    }

    /**
     * The admin session is idle while the workers work: nothing the run does would meet its end
     * until the judging. A server that ends a session says so first (a FATAL message: terminated,
     * shutting down, another backend crashed), and that message waits on the socket, where {@link
     * Postgres#readUnasked} finds it without a round trip. Thrown, it ends the run as a
     * failure the server caused ({@link #lost}), named. Once: the run is ending then.
     */
    private void adminStillThere() {
        if (adminGone) {
            return;
        }
        try {
            Postgres.readUnasked(admin);
        } catch (SQLException e) {
            if (postgres.lostSession(e).isPresent()) {
                adminGone = true;
                throw new IllegalStateException("the run's own session ended", e);
            }
        }
    }

    /**
     * Whether the server still answers a fresh session within a few seconds; if not, a sentence
     * naming it, and from then on {@link #close} leaves the server alone instead of waiting on it.
     */
    @Override
    public Optional<String> trouble() {
        try {
            postgres.probe();
            return Optional.empty();
        } catch (BackendException e) {
            silent = true;
            return Optional.of(e.getMessage());
        }
    }

    /**
     * Whether {@code failure} is PostgreSQL ending or losing a session of the run (crashed,
     * restarted, terminated it, the connection broke), or refusing the lab's tables (someone
     * else's object in the way): a sentence naming the server and the cause. A reply that did not
     * come in time marks the server silent, so {@link #close} waits on it no more.
     */
    @Override
    public Optional<String> lost(Throwable failure) {
        Optional<String> lost = postgres.lostSession(failure).or(() -> refused(failure));
        if (lost.isPresent() && Postgres.timedOut(failure)) {
            // No reply in time: the server is silent, and closing must not wait on it (an observer's
            // or the judge's read can find that out before the run's timeout asks).
            silent = true;
        }
        return lost;
    }

    /** Someone else's object in schema {@code racelab} where the lab's would go: the server cannot be used for it. */
    private Optional<String> refused(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof PgSchema.ForeignObject e) {
                return Optional.of(postgres.cannotBeUsed(e));
            }
        }
        return Optional.empty();
    }

    /**
     * Worker {@code context}'s way to the server, in the lab's mode: the worker {@linkplain
     * PgSessions.Session#borrow borrows} a connection for what it does and closes the lease after.
     */
    public PgSessions.Session session(WorkerContext context) throws SQLException {
        return sessions.session(context);
    }

    /**
     * The run's own session, for judging and checking; the supervisor thread's only (a watch only
     * reads what the server sends it unasked, see {@link #adminStillThere}).
     */
    public Connection admin() {
        return admin;
    }

    /** Runs the lab's statement {@code statement}, whose only parameter is the run id, on the admin session. */
    public void runWithId(String statement) throws SQLException {
        try (PreparedStatement ps = admin.prepareStatement(sql.get(statement))) {
            ps.setString(1, runId);
            ps.execute();
        }
    }

    /** PostgreSQL's lock table on a lane: who waits for whom, who holds {@code rows} and advisory locks, orphans. */
    public PgLockObserver lockObserver(Row... rows) {
        return new PgLockObserver(postgres, sessions, runId, Arrays.stream(rows)
                .map(row -> new PgLockObserver.ProtectedRow(row.label(), sql.get(row.xmaxStatement()))).toList());
    }

    /**
     * The run's advisory locks as {@code pg_locks} has them now, read on the admin session: each
     * held one with its session and believers (orphans among them), each awaited one with who is
     * in the way. The supervisor thread's only, as {@link #admin}.
     */
    public PgLockObserver.AdvisoryLocks advisoryLocks() throws SQLException {
        return PgLockObserver.advisoryLocks(admin, sessions);
    }

    /**
     * The lab's statement {@code statement} (one parameter, the run id; one row of numbers) on a
     * lane called {@code lane}, one value per column, named {@code labels}.
     */
    public PgValueObserver valueObserver(String lane, String statement, List<String> labels) {
        return new PgValueObserver(postgres, lane, sql.get(statement), runId, labels);
    }

    /**
     * A sentence for {@code failure} if PostgreSQL caused it; empty otherwise (another fixture's,
     * or the lab's own), so a scenario asks each of its fixtures in turn.
     */
    @Override
    public Optional<String> explain(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof SQLException e) {
                return Optional.of(postgres.explain(e));
            }
            if (cause instanceof BackendException e && e.service() == Service.POSTGRES) {
                return Optional.of(e.getMessage());
            }
        }
        return Optional.empty();
    }

    @Override
    public ServerWaits waits() {
        return waits::waiting;
    }

    /**
     * Ends every session of the run, then deletes its rows; see the class comment. After the server
     * was found silent, only cuts the run's connections: waiting on it would only hang (its rows go
     * with the next run's {@code forget}, which clears rows older than a day).
     */
    @Override
    public void close() throws SQLException {
        adminWatch.close();
        if (silent) {
            waits.abort();
            sessions.abandon();
            admin.abort(Runnable::run);
            return;
        }
        waits.close();
        try (admin) {
            sessions.close();
            if (joined) {
                return;
            }
            if (adminGone) {
                // The server ended the admin session: the run's rows go on a fresh one.
                try (Connection fresh = postgres.control("setup"); PreparedStatement ps =
                        fresh.prepareStatement(sql.get("forget"))) {
                    ps.setString(1, runId);
                    ps.execute();
                }
            } else if (!admin.isClosed()) {
                runWithId("forget");
            }
        }
    }
}
