package dev.racelab.isolation.run;

import dev.racelab.backend.BackendException;
import dev.racelab.backend.PgAddress;
import dev.racelab.backend.Postgres;
import dev.racelab.backend.SqlFile;
import dev.racelab.engine.Service;

import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The database one spec runs in: created for it with the settings PostgreSQL's test driver gives
 * its own ({@link IsolationSettings}), and dropped after it, whatever happened. A spec never runs
 * in a database RaceLab did not create for it: its setup creates tables and functions as it
 * likes. Roles belong to the whole server, not to the database: {@link SpecRoles} looks after
 * those a spec creates.
 *
 * <p>Created from {@code template0}, UTF-8, C collation, named {@code racelab_isolation_} and its
 * run's 16 random hex digits, and marked with a comment saying when it would be a leftover. A RaceLab killed
 * while a spec runs leaves its scratch database behind; the next scratch database made on that
 * server drops every leftover one: marked so, past its time, and with no session in it. (A spec's
 * sessions stay connected while it runs, so a running spec's database is never taken for one.)
 *
 * <p>Needs a login that may create databases (CREATEDB, or a superuser); without it, {@link
 * #create} says so and nothing is run. {@code lc_messages} can be set only by a superuser: another
 * login's messages come in the server's language ({@link #notes()} says so).
 */
public final class ScratchDatabase implements AutoCloseable {

    /** A scratch database's name: this, and its run's 16 hex digits. */
    static final String PREFIX = "racelab_isolation_";
    private static final String MARK = "RaceLab isolation scratch database; a leftover after ";
    private static final Pattern MARKED = Pattern.compile(Pattern.quote(MARK) + "(\\S+)");
    /** Long enough for the sessions to connect; a running spec keeps them connected. */
    private static final Duration LEFTOVER_AFTER = Duration.ofMinutes(10);
    private static final Duration DROP_WITHIN = Duration.ofSeconds(15);
    private static final String IN_USE = "55006";

    private final Postgres server;
    private final String name;
    private final int serverVersion;
    private final List<String> notes;
    private boolean dropped;

    private ScratchDatabase(Postgres server, String name, int serverVersion, List<String> notes) {
        this.server = server;
        this.name = name;
        this.serverVersion = serverVersion;
        this.notes = List.copyOf(notes);
    }

    /**
     * Creates a scratch database on {@code server} for a run of its own, owned by the login.
     *
     * @throws BackendException if the login may not create databases (saying so), or the server fails
     */
    public static ScratchDatabase create(Postgres server) throws BackendException {
        return create(server, newRun(), null);
    }

    /** A run's 16 random hex digits, which name its scratch database and its roles. */
    static String newRun() {
        byte[] bytes = new byte[8];
        new SecureRandom().nextBytes(bytes);
        return HexFormat.of().formatHex(bytes);
    }

    /**
     * Creates the scratch database of run {@code run} ({@value #PREFIX} and the run's hex digits).
     *
     * @param owner the role to own it (the spec's login, {@link SpecLogin}), or null for the login
     * @throws BackendException if the login may not create databases (saying so), the name is
     *                          taken, or the server fails
     */
    static ScratchDatabase create(Postgres server, String run, String owner) throws BackendException {
        try (Connection admin = server.control("isolation"); Statement s = admin.createStatement()) {
            int version;
            boolean superuser;
            try (ResultSet rs = s.executeQuery(AdminSql.get("rights"))) {
                rs.next();
                superuser = rs.getBoolean(1);
                if (!superuser && !rs.getBoolean(2)) {
                    throw new BackendException(Service.POSTGRES, where(server) + " does not let user '"
                            + rs.getString(3) + "' create databases, and an isolation spec runs only in a scratch "
                            + "database RaceLab creates and drops: grant it CREATEDB (ALTER ROLE " + rs.getString(3)
                            + " CREATEDB), or use a login that has it");
                }
                version = rs.getInt(4);
            }
            dropLeftovers(server, admin, version);
            String name = PREFIX + run;
            if (owner == null) {
                AdminSql.run(admin, "create-database", name);
            } else {
                AdminSql.run(admin, "create-owned-database", name, owner);
            }
            ScratchDatabase scratch = new ScratchDatabase(server, name, version, List.of());
            try {
                AdminSql.run(admin, "mark-database", name, MARK + AdminSql.later(admin, LEFTOVER_AFTER));
                List<String> notes = new ArrayList<>();
                for (IsolationSettings.DatabaseSetting setting : IsolationSettings.database()) {
                    if (setting.superuserOnly() && !superuser) {
                        notes.add(setting.name() + " stays the server's: only a superuser may set it, so messages "
                                + "may not be in English as PostgreSQL's expected outputs are");
                        continue;
                    }
                    AdminSql.run(admin, "set-database", name, setting.name(), setting.value());
                }
                return new ScratchDatabase(server, name, version, notes);
            } catch (SQLException | RuntimeException e) {
                scratch.close();
                throw e;
            }
        } catch (SQLException e) {
            throw new BackendException(Service.POSTGRES, where(server) + " could not make a scratch database: "
                    + e.getMessage().lines().findFirst().orElse(""), e);
        }
    }

    private static String where(Postgres server) {
        return "PostgreSQL at " + server.address().host() + ":" + server.address().port();
    }

    private static void dropLeftovers(Postgres server, Connection admin, int version) throws SQLException {
        Instant now = AdminSql.now(admin);
        List<String> stale = new ArrayList<>();
        try (Statement s = admin.createStatement(); ResultSet rs = s.executeQuery(AdminSql.get("leftovers"))) {
            while (rs.next()) {
                Matcher m = MARKED.matcher(rs.getString(2));
                try {
                    if (m.find() && Instant.parse(m.group(1)).isBefore(now)) {
                        stale.add(rs.getString(1));
                    }
                } catch (DateTimeParseException e) {
                    // Not a mark RaceLab wrote: not RaceLab's to drop.
                }
            }
        }
        for (String leftover : stale) {
            try {
                drop(server, admin, leftover, version);
            } catch (SQLException e) {
                // Another RaceLab may be dropping it at the same moment, or it is someone else's.
            }
        }
    }

    /** The database's name on the server. */
    public String name() {
        return name;
    }

    /** The same server and login, in the scratch database. */
    public PgAddress address() {
        return server.address().withDatabase(name);
    }

    /** What differs from PostgreSQL's own test environment, in sentences; usually none. */
    public List<String> notes() {
        return notes;
    }

    /**
     * Drops the database: its sessions are terminated first (a spec may leave one busy), then it
     * is dropped, within {@link #DROP_WITHIN}.
     *
     * @throws BackendException if it could not be dropped (the message names it)
     */
    public void drop() throws BackendException {
        if (dropped) {
            return;
        }
        try (Connection admin = server.control("isolation")) {
            drop(server, admin, name, serverVersion);
            dropped = true;
        } catch (SQLException e) {
            throw new BackendException(Service.POSTGRES, where(server) + " did not drop scratch database " + name
                    + ": " + e.getMessage().lines().findFirst().orElse(""), e);
        }
    }

    /**
     * Drops a scratch database, whatever its owner (a spec's login) did to keep it: made it a
     * template, or left prepared transactions in it. Its sessions are ended first.
     */
    static void drop(Postgres server, Connection admin, String name, int version) throws SQLException {
        try {
            AdminSql.run(admin, "no-template", name);
        } catch (SQLException e) {
            // Gone already, or never made a template: the drop below says what matters.
        }
        rollbackPrepared(server, admin, name);
        long deadline = System.nanoTime() + DROP_WITHIN.toNanos();
        while (true) {
            try (PreparedStatement terminate = admin.prepareStatement(AdminSql.get("terminate-sessions"))) {
                terminate.setString(1, name);
                terminate.executeQuery().close();
            }
            try {
                AdminSql.run(admin, version >= 130_000 ? "drop-database-force" : "drop-database", name);
                return;
            } catch (SQLException e) {
                if (!IN_USE.equals(e.getSQLState()) || System.nanoTime() > deadline) {
                    throw e;
                }
            }
            // Terminated sessions take a moment to leave: ask again shortly, within the bound.
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SQLException("interrupted while dropping " + name, e);
            }
        }
    }

    /** Rolls back the transactions left prepared in {@code name}: that is done from inside it. */
    private static void rollbackPrepared(Postgres server, Connection admin, String name) throws SQLException {
        try (PreparedStatement p = admin.prepareStatement(AdminSql.get("prepared-in"))) {
            p.setString(1, name);
            try (ResultSet rs = p.executeQuery()) {
                if (!rs.next() || rs.getInt(1) == 0) {
                    return;
                }
            }
        }
        try (Connection inside = server.control("isolation", name); Statement s = inside.createStatement();
             ResultSet rs = s.executeQuery(AdminSql.get("prepared-here"))) {
            List<String> gids = new ArrayList<>();
            while (rs.next()) {
                gids.add(rs.getString(1));
            }
            for (String gid : gids) {
                AdminSql.run(inside, "rollback-prepared", gid);
            }
        }
    }

    /** Drops the database if it is still there, swallowing a failure (for a {@code finally}). */
    @Override
    public void close() {
        try {
            drop();
        } catch (BackendException e) {
            // The caller that needs to know calls drop(); a leftover is dropped by the next spec run.
        }
    }
}
