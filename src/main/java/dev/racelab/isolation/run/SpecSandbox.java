package dev.racelab.isolation.run;

import dev.racelab.backend.BackendException;
import dev.racelab.backend.PgAddress;
import dev.racelab.backend.Postgres;
import dev.racelab.backend.wire.WireConnection;
import dev.racelab.backend.wire.WireException;
import dev.racelab.engine.Service;
import dev.racelab.isolation.RoleNames;
import dev.racelab.isolation.ServerReach;
import dev.racelab.isolation.Spec;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Where one run of a spec happens, confined by privilege: a scratch database made for it, owned
 * by a login role made for it ({@link SpecLogin}), the few rights a spec of PostgreSQL's own may
 * need ({@link SpecGrants}), and the spec's own roles made under the run's names ({@link
 * SpecRoles}). The spec's sessions log in as that role, never as the user's login (nor by {@code
 * SET ROLE}, which a spec could undo), so nothing a spec's SQL does, however it builds it, reaches
 * beyond the scratch database: another database, the server's files and programs, other roles, the
 * server's settings. {@link ServerReach}'s refusals are a second line before this one.
 *
 * <p>Unless the user asks for {@link Access#AS_LOGIN}: then the sessions log in as the user's own
 * login, with all its rights, and only the scratch database and the spec's roles are made.
 *
 * <p>The user's login must be a superuser, or may create databases and roles (it is made a member
 * of the spec's login so that it may give it the scratch database). RaceLab logs in as the spec's
 * login once before the spec starts: a server whose {@code pg_hba.conf} turns it away is named,
 * with the way out.
 *
 * <p>A sandbox may host one spec after another ({@link #mayHost}), as isolationtester runs specs
 * in one database, while each leaves nothing behind. Used by one thread at a time; {@link #release}
 * drops everything it made.
 */
public final class SpecSandbox implements AutoCloseable {

    /** How a spec's sessions log in. */
    public enum Access {
        /** As a role made for the spec, which owns only its scratch database (the default). */
        CONFINED,
        /** As the user's own login, with all its rights: only when the user asks for it. */
        AS_LOGIN
    }

    /** Long enough for the sessions to connect; a running spec keeps them connected. */
    static final Duration LEFTOVER_AFTER = Duration.ofMinutes(10);
    private static final Duration LOGIN_BOUND = Duration.ofSeconds(10);
    private static final String DUPLICATE_ROLE = "42710";

    private final Postgres server;
    private final Connection admin;
    private final SpecLogin login;
    private final ScratchDatabase scratch;
    private final Connection inScratch;
    private final SpecRoles roles;
    private final PgAddress sessions;
    private final SpecGrants.Rights rights;
    /** How many sessions the login may have at once, besides RaceLab's spare ones. */
    private final int sessionLimit;
    /** When the login was made: its password expires {@link #LEFTOVER_AFTER} after. */
    private final long openedNanos;
    /** What the scratch database held when made ({@link #mayHost}); null when it is not to be used again. */
    private final String madeAs;
    /** The login and database, when confined: it keeps a connection into the database to see what a spec left. */
    private final SandboxBase base;
    /** Whether {@link #dropDatabase} was called: its failure was the caller's to report. */
    private boolean databaseTried;
    /** Set once {@link #release} ran: what stayed on the server. */
    private List<String> released;

    private SpecSandbox(Postgres server, Connection admin, SandboxBase base, ScratchDatabase scratch,
                        Connection inScratch, SpecRoles roles, PgAddress sessions, SpecGrants.Rights rights,
                        int sessionLimit, boolean reusable, long openedNanos) {
        this.openedNanos = openedNanos;
        this.server = server;
        this.admin = admin;
        this.base = base;
        this.login = base == null ? null : base.login;
        this.scratch = scratch;
        this.inScratch = inScratch;
        this.roles = roles;
        this.sessions = sessions;
        this.rights = rights;
        this.sessionLimit = sessionLimit;
        String made = null;
        if (reusable) {
            try {
                made = base.asMade(server);
            } catch (SQLException | RuntimeException e) {
                // Not known: not used again.
                base.closeLooking();
            }
        } else if (base != null) {
            base.closeLooking();
        }
        this.madeAs = made;
    }

    /**
     * Makes the sandbox for one run of {@code spec} on {@code server}.
     *
     * @throws BackendException if the login may not do what a sandbox needs (create databases and
     *                          roles), the server does not let the spec's role log in, or it fails
     * @throws IsolationFailure if the spec needs more than a role of its own may have (saying what)
     */
    public static SpecSandbox open(Postgres server, Spec spec, ServerReach reach, Access access)
            throws BackendException, IsolationFailure {
        return open(server, spec, reach, access, spec.sessions().size());
    }

    /**
     * {@link #open}, with a login that may have {@code sessions} sessions at once (at least the
     * spec's): a sandbox for several specs, one after another ({@link #mayHost}).
     */
    public static SpecSandbox open(Postgres server, Spec spec, ServerReach reach, Access access, int sessions)
            throws BackendException, IsolationFailure {
        return open(server, spec, reach, access, sessions, null);
    }

    /**
     * {@link #open(Postgres, Spec, ServerReach, Access, int)}, confined in a login and database that
     * {@code supply} made ahead when it has one (null: made now).
     */
    public static SpecSandbox open(Postgres server, Spec spec, ServerReach reach, Access access, int sessions,
                                   SandboxSupply supply) throws BackendException, IsolationFailure {
        long began = System.nanoTime();
        Connection admin;
        try {
            admin = server.control("isolation");
        } catch (SQLException e) {
            throw new BackendException(Service.POSTGRES, where(server) + " could not be reached to make a scratch "
                    + "database: " + firstLine(e), e);
        }
        SandboxBase base = null;
        ScratchDatabase scratch = null;
        Connection inScratch = null;
        int limit = Math.max(sessions, spec.sessions().size());
        try {
            SpecGrants.Rights rights = SpecGrants.Rights.of(admin);
            SpecGrants grants = SpecGrants.none();
            if (access == Access.CONFINED) {
                checkMayConfine(server, rights);
                grants = SpecGrants.plan(admin, spec, reach, rights);
                base = supply == null ? null : supply.take(limit);
                if (base == null) {
                    base = SandboxBase.make(server, admin, rights, limit);
                } else {
                    began = base.madeNanos;
                }
                scratch = base.scratch;
            } else {
                scratch = ScratchDatabase.create(server, ScratchDatabase.newRun(), null);
                dropLeftoverRoles(server, rights.version());
            }
            SpecLogin login = base == null ? null : base.login;
            if (grants.inScratch() || !reach.createdRoles().isEmpty()) {
                inScratch = server.control("isolation", scratch.name());
            }
            String member = login == null ? rights.user() : login.name();
            grants.give(admin, inScratch, member);
            String run = scratch.name().substring(ScratchDatabase.PREFIX.length());
            SpecRoles roles = reach.createdRoles().isEmpty() ? null : new SpecRoles(
                    RoleNames.of(reach.createdRoles(), SpecLogin.nameFor(run) + "_"), admin, inScratch, member,
                    LEFTOVER_AFTER);
            // The login was tried when its base was made (SandboxBase.make): the server lets it in.
            PgAddress address = login == null ? scratch.address() : base.sessions(server);
            // Only a sandbox whose login was given nothing beyond its database is used again.
            boolean reusable = login != null && grants.isEmpty() && roles == null;
            return new SpecSandbox(server, admin, base, scratch, inScratch, roles, address, rights,
                    limit, reusable, began);
        } catch (SQLException e) {
            undo(admin, base, scratch, inScratch);
            throw new BackendException(Service.POSTGRES, where(server) + " could not make a sandbox for spec "
                    + spec.name() + ": " + firstLine(e), e);
        } catch (BackendException | IsolationFailure | RuntimeException e) {
            undo(admin, base, scratch, inScratch);
            throw e;
        }
    }

    private static void checkMayConfine(Postgres server, SpecGrants.Rights rights) throws BackendException {
        if (rights.superuser() || rights.createRole() && rights.createDb()) {
            return;
        }
        String missing = !rights.createRole() && !rights.createDb() ? "create roles or databases"
                : !rights.createRole() ? "create roles" : "create databases";
        throw new BackendException(Service.POSTGRES, where(server) + " does not let user '" + rights.user() + "' "
                + missing + ", and an isolation spec runs in a scratch database RaceLab creates, as a role RaceLab "
                + "creates for it that owns nothing else: grant it " + (missing.equals("create roles")
                ? "CREATEROLE" : missing.equals("create databases") ? "CREATEDB" : "CREATEROLE and CREATEDB")
                + ", use a login that has it, or run the spec as " + rights.user() + " itself, with all of its "
                + "rights (" + SpecGrants.AS_LOGIN_HINT + ")");
    }

    static SpecLogin createLogin(Connection admin, SpecGrants.Rights rights, int sessions)
            throws SQLException {
        for (int attempt = 0; ; attempt++) {
            try {
                return SpecLogin.create(admin, ScratchDatabase.newRun(), rights.superuser(), sessions, LEFTOVER_AFTER);
            } catch (SQLException e) {
                if (!DUPLICATE_ROLE.equals(e.getSQLState()) || attempt >= 3) {
                    throw e;
                }
            }
        }
    }

    static void dropLeftoverRoles(Postgres server, int version) {
        // On a connection of its own: dropping an old scratch database can outlast the control
        // connection's read bound on a busy server, which closes the connection, and the sandbox's
        // own (which makes this run's roles next) must not go with it.
        try (Connection sweep = server.control("isolation")) {
            SpecLogin.dropLeftovers(server, sweep, version);
        } catch (SQLException e) {
            // Leftovers wait for the next run; this one goes on.
        }
    }

    /**
     * Logs in as the spec's login once, so that a server whose {@code pg_hba.conf} turns it away
     * is named before the spec starts, with what to do about it.
     */
    static void tryLogin(Postgres server, PgAddress sessions, String name) throws BackendException {
        try {
            WireConnection.open(sessions, sessions.database(), Map.of("application_name",
                    Postgres.APP_PREFIX + "isolation-login"), LOGIN_BOUND).close();
        } catch (WireException e) {
            String refused = e.sqlState() != null && e.sqlState().startsWith("28")
                    ? " does not let the role RaceLab made for the spec's sessions (" + name + ") log in, by password "
                            + "from this machine: " + e.getMessage() + ". Let RaceLab's spec roles in (pg_hba.conf: "
                            + "a host line for them with method scram-sha-256; their names start racelab_spec_, "
                            + "which PostgreSQL 16 and newer match as /^racelab_spec_), or run the spec as your own "
                            + "login, with all of its rights (" + SpecGrants.AS_LOGIN_HINT + ")"
                    : " did not let the spec's role log in: " + e.getMessage();
            throw new BackendException(Service.POSTGRES, where(server) + refused, e);
        }
    }

    /** What the spec's sessions connect to: the scratch database, as the spec's login (or the user's). */
    public PgAddress sessions() {
        return sessions;
    }

    /** The scratch database's name. */
    public String database() {
        return scratch.name();
    }

    /** What the runner does with the spec's SQL: its roles' names, its role statements. */
    public SpecSql sql() {
        return roles == null ? SpecSql.AS_WRITTEN : roles;
    }

    /** How the scratch database differs from PostgreSQL's own test environment, in sentences. */
    public List<String> notes() {
        return scratch.notes();
    }

    /**
     * Whether {@code next} may run here after the spec that ran last, as isolationtester runs one
     * spec after another in one database: only in a confined sandbox whose login was given nothing
     * beyond its database, for a spec that needs nothing more either (no rights, no roles of its
     * own, no more sessions), while the database is young (well before another RaceLab would take
     * it for a leftover), and when the spec before left nothing there: no object, no changed
     * right, comment or setting ({@code what-a-spec-left}). Otherwise the caller makes a new one.
     */
    public boolean mayHost(Spec next, ServerReach reach) {
        if (madeAs == null || released != null || databaseTried || next.sessions().size() > sessionLimit
                || !reach.createdRoles().isEmpty()
                || System.nanoTime() - openedNanos > LEFTOVER_AFTER.toNanos() / 2) {
            return false;
        }
        try {
            if (!SpecGrants.plan(admin, next, reach, rights).isEmpty() || !madeAs.equals(whatIsThere())) {
                return false;
            }
            // The login may have changed its own password: the next spec's sessions must still get in.
            tryLogin(server, sessions, login.name());
            return true;
        } catch (SQLException | IsolationFailure | BackendException | RuntimeException e) {
            // The new sandbox's making says what is wrong, if anything is.
            return false;
        }
    }

    /** The digest of what the scratch database holds (see {@link #mayHost}). */
    private String whatIsThere() throws SQLException {
        return base.whatIsThere(server);
    }

    /**
     * Drops the scratch database now, after locking the spec's login out.
     *
     * @throws BackendException if it could not be dropped (the message names it)
     */
    public void dropDatabase() throws BackendException {
        closeQuietly(inScratch);
        if (base != null) {
            base.closeLooking();
        }
        if (login != null) {
            login.lock(admin);
        }
        databaseTried = true;
        scratch.drop();
    }

    /**
     * Drops what the sandbox made: the scratch database (if {@link #dropDatabase} was not called),
     * then the spec's roles, then its login; each is tried whatever happened to the one before, on
     * a connection of its own (the one held since the start may have been cut meanwhile). Once
     * only: later calls return the first's answer.
     *
     * @return what stays on the server, as sentences naming each; empty when nothing does
     */
    public synchronized List<String> release() {
        if (released != null) {
            return released;
        }
        List<String> kept = new ArrayList<>();
        if (!databaseTried) {
            try {
                dropDatabase();
            } catch (BackendException e) {
                kept.add(e.getMessage());
            }
        }
        Connection cleanup = fresh();
        if (roles != null) {
            kept.addAll(roles.dropAll(cleanup));
        }
        if (login != null) {
            try {
                login.drop(cleanup);
            } catch (SQLException e) {
                kept.add("role " + login.name() + ", which RaceLab created for the spec's sessions, stays on the "
                        + "server: " + firstLine(e));
            }
        }
        if (cleanup != admin) {
            closeQuietly(cleanup);
        }
        closeQuietly(admin);
        released = List.copyOf(kept);
        return released;
    }

    /** A new connection for the clean-up, or the one held since the start when none can be had. */
    private Connection fresh() {
        try {
            return server.control("isolation");
        } catch (SQLException e) {
            return admin;
        }
    }

    /** {@link #release}, for a try-with-resources. */
    @Override
    public void close() {
        release();
    }

    /** After a failed {@link #open}: whatever was made goes, quietly (what stays is marked for the next run). */
    private static void undo(Connection admin, SandboxBase base, ScratchDatabase scratch, Connection inScratch) {
        closeQuietly(inScratch);
        if (base != null) {
            base.drop(admin);
        } else if (scratch != null) {
            scratch.close();
        }
        closeQuietly(admin);
    }

    private static void closeQuietly(Connection c) {
        if (c == null) {
            return;
        }
        try {
            c.close();
        } catch (SQLException e) {
            // Closing: nothing left to do with it.
        }
    }

    private static String where(Postgres server) {
        return "PostgreSQL at " + server.address().host() + ":" + server.address().port();
    }

    private static String firstLine(SQLException e) {
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage().lines().findFirst().orElse("");
    }
}
