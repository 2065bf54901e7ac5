package dev.racelab.isolation.run;

import dev.racelab.backend.BackendException;
import dev.racelab.backend.PgAddress;
import dev.racelab.backend.Postgres;
import dev.racelab.backend.SqlFile;
import dev.racelab.backend.wire.WireConnection;
import dev.racelab.backend.wire.WireException;
import dev.racelab.engine.Service;
import dev.racelab.isolation.RoleNames;
import dev.racelab.isolation.ServerReach;
import dev.racelab.isolation.Spec;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Where one run of a spec happens, confined by privilege: a scratch database made for it, owned
 * by a login role made for it ({@link SpecLogin}), the few rights a spec of PostgreSQL's own may
 * need granted to that role, and the spec's own roles made under the run's names ({@link
 * SpecRoles}). The spec's sessions log in as that role, never as the user's login, so nothing a
 * spec's SQL does (however it builds it) reaches beyond the scratch database: another database,
 * the server's files and programs, other roles, the server's settings. {@link ServerReach}'s
 * refusals are a second line before this one.
 *
 * <p>What the role is granted, when the spec names it: to set the superuser-only settings in
 * {@link #SETTINGS} in its own sessions (PostgreSQL 15's {@code GRANT SET ON PARAMETER}), and, in
 * the scratch database only, to call the functions in {@link #FUNCTIONS}, which reset that
 * database's statistics, to update the columns of that database's catalog in {@link
 * #CATALOG_COLUMNS} (a row count estimate), and, with {@code allow_system_table_mods}, to rename
 * its tables' TOAST tables (USAGE and CREATE on that database's schema {@code pg_toast}). A spec that needs more
 * (another superuser-only setting or function, or a grant the user's login cannot give) is
 * refused, saying what it needs, unless the user asks for {@link Access#AS_LOGIN}: then the
 * sessions log in as the user's own login, with all its rights.
 *
 * <p>The user's login must be a superuser, or may create databases and roles (it is made a member
 * of the spec's login so that it may give it the scratch database). Where the server's {@code
 * pg_hba.conf} does not let the spec's login in, the sandbox says so and names the way out.
 *
 * <p>Used by one thread at a time; {@link #close} drops everything it made, the database first.
 */
public final class SpecSandbox implements AutoCloseable {

    /** How a spec's sessions log in. */
    public enum Access {
        /** As a role made for the spec, which owns only its scratch database (the default). */
        CONFINED,
        /** As the user's own login, with all its rights: only when the user asks for it. */
        AS_LOGIN
    }

    /** What the user does to run a spec as their login, in the words of the command line and the window. */
    public static final String AS_LOGIN_HINT = "--as-login on the command line, 'Run as my login' in the window";

    /** Superuser-only settings a spec's role may set in its own sessions: PostgreSQL's own specs set these. */
    static final Set<String> SETTINGS = Set.of("deadlock_timeout", "lc_messages", "track_counts", "track_functions",
            "track_activities", "track_io_timing", "track_wal_io_timing", "allow_system_table_mods",
            "session_replication_role", "log_lock_waits");
    /**
     * Columns of the scratch database's own catalog a spec's role may update: a table's row count
     * estimate, which only that database's planner reads (PostgreSQL 17's eval-plan-qual sets it).
     */
    static final Set<String> CATALOG_COLUMNS = Set.of("pg_class.reltuples");
    /** Functions that act on the database they are called in, not the server: granted in the scratch database. */
    static final Set<String> FUNCTIONS = Set.of("pg_stat_reset", "pg_stat_reset_single_function_counters");
    private static final SqlFile SQL = SqlFile.load(SpecSandbox.class, "isolation.sql");
    /** Long enough for the sessions to connect; a running spec keeps them connected. */
    static final Duration LEFTOVER_AFTER = Duration.ofMinutes(10);
    private static final Duration LOGIN_BOUND = Duration.ofSeconds(10);
    private static final String DUPLICATE_ROLE = "42710";
    private static final int PG15 = 150_000;

    private final Connection admin;
    private final SpecLogin login;
    private final ScratchDatabase scratch;
    private final Connection inScratch;
    private final SpecSql sql;
    private final SpecRoles roles;
    private final PgAddress sessions;
    /** Whether {@link #dropDatabase} was called: its failure was the caller's to report. */
    private boolean databaseTried;
    /** Set once {@link #release} ran: what stayed on the server. */
    private List<String> released;

    private SpecSandbox(Connection admin, SpecLogin login, ScratchDatabase scratch, Connection inScratch,
                        SpecRoles roles, PgAddress sessions) {
        this.admin = admin;
        this.login = login;
        this.scratch = scratch;
        this.inScratch = inScratch;
        this.roles = roles;
        this.sql = roles == null ? SpecSql.AS_WRITTEN : roles;
        this.sessions = sessions;
    }

    /** A right to give the spec's login: what GRANT says of it, and whether it is given in the scratch database. */
    private record Grant(String what, boolean inScratch) {
    }

    /** The login's rights, as the server reports them. */
    private record Rights(boolean superuser, boolean createDb, boolean createRole, String user, int version) {
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
        Connection admin;
        try {
            admin = server.control("isolation");
        } catch (SQLException e) {
            throw new BackendException(Service.POSTGRES, where(server) + " could not be reached to make a scratch "
                    + "database: " + firstLine(e), e);
        }
        SpecLogin login = null;
        ScratchDatabase scratch = null;
        Connection inScratch = null;
        try {
            Rights rights = rights(admin);
            List<Grant> grants = List.of();
            if (access == Access.CONFINED) {
                checkMayConfine(server, rights);
                grants = grants(admin, spec, reach, rights);
            }
            String run = ScratchDatabase.newRun();
            if (access == Access.CONFINED) {
                login = createLogin(admin, rights);
                run = login.name().substring(SpecLogin.PREFIX.length());
            }
            scratch = ScratchDatabase.create(server, run, login == null ? null : login.name());
            dropLeftoverRoles(admin);
            if (!grants.isEmpty() || !reach.createdRoles().isEmpty()) {
                inScratch = server.control("isolation", scratch.name());
            }
            grant(admin, inScratch, grants, login);
            SpecRoles roles = reach.createdRoles().isEmpty() ? null : new SpecRoles(
                    RoleNames.of(reach.createdRoles(), SpecLogin.nameFor(run) + "_"), admin, inScratch,
                    login == null ? rights.user() : login.name(), LEFTOVER_AFTER);
            PgAddress sessions = login == null ? scratch.address() : login.address(server.address(), scratch.name());
            if (login != null) {
                tryLogin(server, sessions, login.name());
            }
            return new SpecSandbox(admin, login, scratch, inScratch, roles, sessions);
        } catch (SQLException e) {
            undo(admin, login, scratch, inScratch);
            throw new BackendException(Service.POSTGRES, where(server) + " could not make a sandbox for spec "
                    + spec.name() + ": " + firstLine(e), e);
        } catch (BackendException | IsolationFailure | RuntimeException e) {
            undo(admin, login, scratch, inScratch);
            throw e;
        }
    }

    private static Rights rights(Connection admin) throws SQLException {
        try (Statement s = admin.createStatement(); ResultSet rs = s.executeQuery(SQL.get("rights"))) {
            rs.next();
            return new Rights(rs.getBoolean(1), rs.getBoolean(2), rs.getBoolean(5), rs.getString(3), rs.getInt(4));
        }
    }

    private static void checkMayConfine(Postgres server, Rights rights) throws BackendException {
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
                + "rights (" + AS_LOGIN_HINT + ")");
    }

    /**
     * What the spec's role is to be granted, each with what GRANT says of it ({@code SET ON
     * PARAMETER deadlock_timeout}); refuses a spec that needs what RaceLab will not or cannot grant.
     */
    private static List<Grant> grants(Connection admin, Spec spec, ServerReach reach, Rights rights)
            throws SQLException, IsolationFailure {
        List<Grant> grants = new ArrayList<>();
        List<String> needs = new ArrayList<>();
        for (List<String> row : query(admin, "superuser-settings", reach.settings())) {
            String setting = row.get(0);
            if (!SETTINGS.contains(setting)) {
                needs.add("it sets " + setting + ", which only a superuser may set");
            } else if (!rights.superuser() || rights.version() < PG15) {
                needs.add("it sets " + setting + ", which only a superuser may set, and RaceLab can let the spec's "
                        + "role set it only with a superuser login on PostgreSQL 15 or newer");
            } else {
                grants.add(new Grant("SET ON PARAMETER " + setting, false));
                if (setting.equals("allow_system_table_mods")) {
                    // What a spec does with it: rename its own tables' TOAST tables, in schema pg_toast.
                    grants.add(new Grant("USAGE, CREATE ON SCHEMA pg_toast", true));
                }
            }
        }
        for (List<String> row : query(admin, "revoked-functions", reach.functions())) {
            String name = row.get(0);
            if (!FUNCTIONS.contains(name)) {
                needs.add("it calls " + name + ", which not everyone may call");
            } else if (!rights.superuser()) {
                needs.add("it calls " + name + ", which RaceLab can let the spec's role call only with a superuser "
                        + "login");
            } else {
                grants.add(new Grant("EXECUTE ON FUNCTION " + row.get(1), true));
            }
        }
        for (String column : reach.catalogWrites()) {
            if (!CATALOG_COLUMNS.contains(column)) {
                needs.add("it updates " + column + ", which only a superuser may change");
            } else if (!rights.superuser()) {
                needs.add("it updates " + column + ", which RaceLab can let the spec's role change only with a "
                        + "superuser login");
            } else {
                String[] table = column.split("\\.");
                grants.add(new Grant("UPDATE (" + table[1] + ") ON pg_catalog." + table[0], true));
            }
        }
        if (!needs.isEmpty()) {
            throw new IsolationFailure("refused, nothing ran: spec " + spec.name() + " runs as a role of its own, "
                    + "which owns only its scratch database, and needs more: " + String.join("; ", needs.stream()
                    .distinct().toList()) + ". To run it as " + rights.user() + ", with all of its rights, ask for "
                    + "that (" + AS_LOGIN_HINT + ")");
        }
        return grants;
    }

    /** The named template's rows, asked with {@code names} as its one parameter. */
    private static List<List<String>> query(Connection admin, String template, Set<String> names)
            throws SQLException {
        List<List<String>> rows = new ArrayList<>();
        if (names.isEmpty()) {
            return rows;
        }
        try (PreparedStatement p = admin.prepareStatement(SQL.get(template))) {
            p.setArray(1, admin.createArrayOf("text", names.toArray()));
            try (ResultSet rs = p.executeQuery()) {
                int columns = rs.getMetaData().getColumnCount();
                while (rs.next()) {
                    List<String> row = new ArrayList<>();
                    for (int c = 1; c <= columns; c++) {
                        row.add(rs.getString(c));
                    }
                    rows.add(row);
                }
            }
        }
        return rows;
    }

    private static SpecLogin createLogin(Connection admin, Rights rights) throws SQLException {
        for (int attempt = 0; ; attempt++) {
            try {
                return SpecLogin.create(admin, ScratchDatabase.newRun(), rights.superuser(), LEFTOVER_AFTER);
            } catch (SQLException e) {
                if (!DUPLICATE_ROLE.equals(e.getSQLState()) || attempt >= 3) {
                    throw e;
                }
            }
        }
    }

    private static void dropLeftoverRoles(Connection admin) {
        try {
            SpecLogin.dropLeftovers(admin);
        } catch (SQLException e) {
            // Leftovers wait for the next run; this one goes on.
        }
    }

    /** Gives the spec's login what {@link #grants} found it needs: settings anywhere, functions in the scratch database. */
    private static void grant(Connection admin, Connection inScratch, List<Grant> grants, SpecLogin login)
            throws SQLException {
        for (Grant g : grants) {
            try (Statement s = (g.inScratch() ? inScratch : admin).createStatement()) {
                s.execute("GRANT " + g.what() + " TO " + s.enquoteIdentifier(login.name(), true));
            }
        }
    }

    /**
     * Logs in as the spec's login once, so that a server whose {@code pg_hba.conf} turns it away
     * is named before the spec starts, with what to do about it.
     */
    private static void tryLogin(Postgres server, PgAddress sessions, String name) throws BackendException {
        try {
            WireConnection.open(sessions, sessions.database(), Map.of("application_name",
                    Postgres.APP_PREFIX + "isolation-login"), LOGIN_BOUND).close();
        } catch (WireException e) {
            String refused = e.sqlState() != null && e.sqlState().startsWith("28")
                    ? " does not let the role RaceLab made for the spec's sessions (" + name + ") log in, by password "
                            + "from this machine: " + e.getMessage() + ". Let it in (pg_hba.conf: a line for "
                            + "roles starting racelab_spec_, method scram-sha-256), or run the spec as your own "
                            + "login, with all of its rights (" + AS_LOGIN_HINT + ")"
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
        return sql;
    }

    /** How the scratch database differs from PostgreSQL's own test environment, in sentences. */
    public List<String> notes() {
        return scratch.notes();
    }

    /**
     * Drops the scratch database now.
     *
     * @throws BackendException if it could not be dropped (the message names it)
     */
    public void dropDatabase() throws BackendException {
        closeQuietly(inScratch);
        databaseTried = true;
        scratch.drop();
    }

    /**
     * Drops what the sandbox made: the scratch database (if still there), then the spec's roles,
     * then its login, each whatever happened to the one before. Once only: later calls return the
     * first's answer.
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
        if (roles != null) {
            kept.addAll(roles.dropAll());
        }
        if (login != null) {
            try {
                login.drop(admin);
            } catch (SQLException e) {
                kept.add("role " + login.name() + ", which RaceLab created for the spec's sessions, stays on the "
                        + "server: " + firstLine(e));
            }
        }
        closeQuietly(admin);
        released = List.copyOf(kept);
        return released;
    }

    /** {@link #release}, for a try-with-resources. */
    @Override
    public void close() {
        release();
    }

    /** After a failed {@link #open}: whatever was made goes, quietly. */
    private static void undo(Connection admin, SpecLogin login, ScratchDatabase scratch, Connection inScratch) {
        closeQuietly(inScratch);
        if (scratch != null) {
            scratch.close();
        }
        if (login != null) {
            try {
                login.drop(admin);
            } catch (SQLException e) {
                // Marked: the next spec run on this server drops it.
            }
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
