package dev.racelab.isolation.run;

import dev.racelab.backend.PgAddress;
import dev.racelab.backend.Postgres;
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
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
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
 * as a SCRAM verifier, and lives in this object alone. It takes a few sessions at most and its
 * password expires when it would be a leftover: a spec may change its own password, but not those.
 * Marked with a comment (by the server's clock) saying when it would be a leftover: a RaceLab killed
 * while a spec runs leaves it behind, and the next spec run on that server drops every such role
 * (and the spec's roles of that run, and its scratch database if nobody is in it) whose time has passed.
 */
final class SpecLogin {

    static final String PREFIX = "racelab_spec_";
    private static final String MARK = "RaceLab isolation role; a leftover after ";
    private static final Pattern MARKED = Pattern.compile(Pattern.quote(MARK) + "(\\S+)");
    /** A spec's role, or the login: PREFIX, the run's hex digits, then _ and more for a spec's role. */
    private static final Pattern RUN = Pattern.compile(Pattern.quote(PREFIX) + "([0-9a-f]{16})(_.*)?", Pattern.DOTALL);
    /** Sessions beyond the spec's own: its control connection, RaceLab's first login, one leaving late. */
    private static final int SPARE_SESSIONS = 3;

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
     * Creates the login for run {@code run}, marked, in one transaction; a login that is no
     * superuser is made a member of it, so that it may make the scratch database the new role's.
     *
     * @param sessions the spec's sessions
     * @throws SQLException if the server refuses (a role of that name exists: another run's)
     */
    static SpecLogin create(Connection admin, String run, boolean superuser, int sessions, Duration leftoverAfter)
            throws SQLException {
        String name = nameFor(run);
        String password = Passwords.random();
        String until = AdminSql.later(admin, leftoverAfter).toString();
        AdminSql.inTransaction(admin, () -> {
            AdminSql.run(admin, "create-login", name, String.valueOf(sessions + SPARE_SESSIONS), until,
                    Passwords.scramVerifier(password));
            AdminSql.run(admin, "mark-role", name, MARK + until);
            if (!superuser) {
                AdminSql.run(admin, "grant-role-to-login", name);
            }
        });
        return new SpecLogin(name, password);
    }

    /** What marks a role of RaceLab's spec runs, with the server's time after which it is a leftover. */
    static String mark(Connection admin, Duration leftoverAfter) throws SQLException {
        return MARK + AdminSql.later(admin, leftoverAfter);
    }

    String name() {
        return name;
    }

    /** The address the spec's sessions log in with: the server's, as this login, in {@code database}. */
    PgAddress address(PgAddress server, String database) {
        return server.withLogin(name, password).withDatabase(database);
    }

    /** Nobody logs in as it any more: first thing before its scratch database and it are dropped. */
    void lock(Connection admin) {
        try {
            AdminSql.run(admin, "no-login", name);
        } catch (SQLException e) {
            // Dropped already, or this login may not: the drop that follows says what matters.
        }
    }

    /**
     * Drops the login, after its scratch database is gone: first what it was granted outside that
     * database (settings), which {@code DROP OWNED} revokes, then the role.
     */
    void drop(Connection admin) throws SQLException {
        dropRole(admin, name);
    }

    private static void dropRole(Connection admin, String role) throws SQLException {
        AdminSql.run(admin, "no-login", role);
        AdminSql.runShared(admin, "drop-owned", role);
        AdminSql.run(admin, "drop-role-if-exists", role);
    }

    /**
     * Drops what RaceLab's killed spec runs left on the server: each login marked by RaceLab whose
     * time has passed, by the server's clock, with its run's scratch database if nobody is in it
     * (whatever the spec did to that database's own mark), and the spec's roles of that run. A
     * run with a session in its database is running: left alone. What another RaceLab is dropping
     * at the same moment, or what this login may not drop, is left for later.
     */
    static void dropLeftovers(Postgres server, Connection admin, int version) throws SQLException {
        Instant now = AdminSql.now(admin);
        Map<String, List<String>> runs = new TreeMap<>();
        Set<String> loginsPast = new HashSet<>();
        try (Statement s = admin.createStatement(); ResultSet rs = s.executeQuery(AdminSql.get("marked-roles"))) {
            while (rs.next()) {
                Matcher run = RUN.matcher(rs.getString(1));
                Matcher mark = MARKED.matcher(rs.getString(2));
                if (!run.matches() || !mark.find() || !past(mark.group(1), now)) {
                    continue;
                }
                runs.computeIfAbsent(run.group(1), r -> new ArrayList<>());
                if (run.group(2) == null) {
                    loginsPast.add(run.group(1));
                } else {
                    runs.get(run.group(1)).add(rs.getString(1));
                }
            }
        }
        for (Map.Entry<String, List<String>> run : runs.entrySet()) {
            String database = ScratchDatabase.PREFIX + run.getKey();
            try {
                if (sessionsIn(admin, database) > 0) {
                    continue;
                }
                ScratchDatabase.drop(server, admin, database, version);
                for (String role : run.getValue()) {
                    AdminSql.run(admin, "drop-role-if-exists", role);
                }
                if (loginsPast.contains(run.getKey())) {
                    dropRole(admin, nameFor(run.getKey()));
                }
            } catch (SQLException e) {
                // Another RaceLab may be dropping it at the same moment, or this login may not: left for later.
            }
        }
    }

    private static int sessionsIn(Connection admin, String database) throws SQLException {
        try (PreparedStatement p = admin.prepareStatement(AdminSql.get("sessions-in"))) {
            p.setString(1, database);
            try (ResultSet rs = p.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }

    private static boolean past(String instant, Instant now) {
        try {
            return Instant.parse(instant).isBefore(now);
        } catch (DateTimeParseException e) {
            return false;
        }
    }
}
