package dev.racelab.isolation.run;

import dev.racelab.backend.PgAddress;
import dev.racelab.backend.SqlFile;
import dev.racelab.backend.wire.Passwords;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The role a spec's sessions log in as: made by RaceLab for one run of one spec, it owns that
 * run's scratch database and nothing else. It is no superuser, may not create databases or roles,
 * replicate or bypass row security, and is a member of no role but the spec's own (which RaceLab
 * makes for it, {@link SpecRoles}). Whatever a spec does, even SQL it builds while it runs, meets
 * these rights: another database, the server's files and programs, other roles are out of reach.
 *
 * <p>Named {@code racelab_spec_<run>} (the run's 16 hex digits, as its scratch database is {@code
 * racelab_isolation_<run>}); its password is random, made by RaceLab and given to the server only
 * as a SCRAM verifier, and lives in this object alone. Marked with a comment saying when it would
 * be a leftover: a RaceLab killed while a spec runs leaves it behind, and the next spec run on that
 * server drops every such role (and the spec's roles of that run) whose time has passed and whose
 * scratch database is gone.
 */
final class SpecLogin {

    static final String PREFIX = "racelab_spec_";
    private static final SqlFile SQL = SqlFile.load(SpecLogin.class, "isolation.sql");
    private static final String MARK = "RaceLab isolation role; a leftover after ";
    private static final Pattern MARKED = Pattern.compile(Pattern.quote(MARK) + "(\\S+)");
    /** A spec's role, or the login: PREFIX, the run's hex digits, then _ and more for a spec's role. */
    private static final Pattern RUN = Pattern.compile(Pattern.quote(PREFIX) + "([0-9a-f]{16})(_.*)?", Pattern.DOTALL);

    private final String name;
    private final String password;

    private SpecLogin(String name, String password) {
        this.name = name;
        this.password = password;
    }

    /** The login's name for run {@code run} (16 hex digits). */
    static String nameFor(String run) {
        return PREFIX + run;
    }

    /**
     * Creates the login for run {@code run}; a login that is no superuser is made a member of it,
     * so that it may make the scratch database the new role's.
     *
     * @throws SQLException if the server refuses (a role of that name exists: another run's)
     */
    static SpecLogin create(Connection admin, String run, boolean superuser, Duration leftoverAfter)
            throws SQLException {
        String name = nameFor(run);
        String password = Passwords.random();
        try (Statement s = admin.createStatement()) {
            String role = s.enquoteIdentifier(name, true);
            s.execute("CREATE ROLE " + role + " LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS "
                    + "PASSWORD " + s.enquoteLiteral(Passwords.scramVerifier(password)));
            s.execute("COMMENT ON ROLE " + role + " IS " + s.enquoteLiteral(mark(leftoverAfter)));
            if (!superuser) {
                s.execute("GRANT " + role + " TO CURRENT_USER");
            }
        }
        return new SpecLogin(name, password);
    }

    /** What marks a role of RaceLab's spec runs, with the time after which it is a leftover. */
    static String mark(Duration leftoverAfter) {
        return MARK + Instant.now().plus(leftoverAfter);
    }

    String name() {
        return name;
    }

    /** The address the spec's sessions log in with: the server's, as this login, in {@code database}. */
    PgAddress address(PgAddress server, String database) {
        return server.withLogin(name, password).withDatabase(database);
    }

    /**
     * Drops the login, after its scratch database is gone: first what it was granted outside that
     * database (settings), which {@code DROP OWNED} revokes, then the role.
     */
    void drop(Connection admin) throws SQLException {
        dropRole(admin, name);
    }

    private static void dropRole(Connection admin, String role) throws SQLException {
        try (Statement s = admin.createStatement()) {
            String quoted = s.enquoteIdentifier(role, true);
            s.execute("DROP OWNED BY " + quoted);
            s.execute("DROP ROLE " + quoted);
        }
    }

    /**
     * Drops the roles RaceLab's killed spec runs left on the server: marked by RaceLab, past their
     * time, their run's scratch database gone. A role another RaceLab is dropping at the same
     * moment, or one this login may not drop, is left for later.
     */
    static void dropLeftovers(Connection admin) throws SQLException {
        Set<String> databases = new HashSet<>();
        try (Statement s = admin.createStatement(); ResultSet rs = s.executeQuery(SQL.get("scratch-databases"))) {
            while (rs.next()) {
                databases.add(rs.getString(1));
            }
        }
        List<String> logins = new ArrayList<>();
        List<String> specRoles = new ArrayList<>();
        try (PreparedStatement p = admin.prepareStatement(SQL.get("marked-roles"))) {
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    Matcher run = RUN.matcher(rs.getString(1));
                    Matcher mark = MARKED.matcher(rs.getString(2));
                    if (!run.matches() || !mark.find() || databases.contains(ScratchDatabase.PREFIX + run.group(1))
                            || !past(mark.group(1))) {
                        continue;
                    }
                    (run.group(2) == null ? logins : specRoles).add(rs.getString(1));
                }
            }
        }
        for (String role : specRoles) {
            dropQuietly(admin, role);
        }
        for (String role : logins) {
            dropQuietly(admin, role);
        }
    }

    private static boolean past(String instant) {
        try {
            return Instant.parse(instant).isBefore(Instant.now());
        } catch (DateTimeParseException e) {
            return false;
        }
    }

    private static void dropQuietly(Connection admin, String role) {
        try {
            dropRole(admin, role);
        } catch (SQLException e) {
            // Another RaceLab may be dropping it at the same moment, or this login may not: left for later.
        }
    }
}
