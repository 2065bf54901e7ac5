package dev.racelab.classroom;

import dev.racelab.backend.BackendException;
import dev.racelab.backend.PgAddress;
import dev.racelab.backend.Postgres;
import dev.racelab.backend.SqlFile;
import dev.racelab.backend.wire.Passwords;
import dev.racelab.engine.Service;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A class's share of PostgreSQL, confined by privilege: a database made for the class, owned by a
 * login made for it, {@code racelab_class_<code>}. The login is no superuser, may not create
 * databases or roles, replicate or bypass row security, and inherits nothing; only it may connect
 * to its database. The lab's tables are made in that database as that login, so the participants,
 * logging in as it, use them and nothing else of the server's. Its password is the class's ({@link
 * ClassRoom}), reaches the server only as a SCRAM verifier, and expires when the class would be a
 * leftover.
 *
 * <p>On RaceLab's embedded server, which lets its own sessions in from the machine without a
 * password, {@link ClassHba} also makes the login need its password and keeps it out of every other
 * database. On another server its {@code pg_hba.conf} is its administrator's: there the login may
 * still connect to databases whose {@code CONNECT} is granted to everyone, and read what everyone may
 * read in them (their catalogs), as any login of that server may.
 *
 * <p>Marked with the server's time after which it is a leftover; the next class hosted on that
 * server drops such leftovers that nobody is connected to.
 */
final class ClassDatabase implements AutoCloseable {

    static final SqlFile SQL = SqlFile.load(ClassDatabase.class, "classroom.sql");
    private static final String MARK = "RaceLab class; a leftover after ";
    private static final Pattern MARKED = Pattern.compile(Pattern.quote(MARK) + "(.+)");
    /** Sessions beyond the participants': RaceLab's own look, one leaving late. */
    private static final int SPARE_SESSIONS = 4;

    /** The classes this RaceLab hosts now, by their login's name. */
    private static final java.util.Set<String> HOSTING = java.util.concurrent.ConcurrentHashMap.newKeySet();

    private final Postgres server;
    private final ClassCode code;
    private final String password;
    private final ClassHba hba;

    private ClassDatabase(Postgres server, ClassCode code, String password, ClassHba hba) {
        this.server = server;
        this.code = code;
        this.password = password;
        this.hba = hba;
    }

    /**
     * Makes the class's login (its password {@code password}) and database on {@code server}, with room for {@code sessions}
     * sessions, a leftover after {@code lifetime}; logs in as it once.
     *
     * @throws BackendException the login may not make them (saying what it lacks), or the server
     *                          refuses the class's login
     */
    static ClassDatabase make(Postgres server, ClassCode code, String password, int sessions, Duration lifetime)
            throws BackendException {
        String name = code.pgName();
        ClassHba hba = null;
        HOSTING.add(name);
        try (Connection admin = server.control("class")) {
            boolean superuser = checkRights(server, admin);
            dropLeftovers(admin, server.embedded());
            String until = later(admin, lifetime);
            SQL.runMade(admin, "create-role", name, String.valueOf(sessions + SPARE_SESSIONS), until,
                    Passwords.scramVerifier(password));
            SQL.runMade(admin, "mark-role", name, MARK + until);
            if (!superuser) {
                SQL.runMade(admin, "grant-role-to-login", name);
            }
            SQL.runMade(admin, "create-database", name, name);
            SQL.runMade(admin, "mark-database", name, MARK + until);
            SQL.runMade(admin, "only-owner-connects", name);
            if (server.embedded()) {
                hba = ClassHba.confine(admin, name);
                awaitPasswordAsked(server.address().withLogin(name, null).withDatabase(name));
            }
        } catch (SQLException e) {
            drop(server, name, hba);
            throw new BackendException(Service.POSTGRES, server.describe() + " could not make the class's database: "
                    + firstLine(e), e);
        }
        ClassDatabase made = new ClassDatabase(server, code, password, hba);
        try {
            Postgres.reach(made.address());
            return made;
        } catch (BackendException e) {
            made.close();
            throw new BackendException(Service.POSTGRES, server.describe() + " does not let the class's login "
                    + name + " in: " + e.getMessage() + ". Its pg_hba.conf must let " + name + " log in to database "
                    + name + " with a password.", e);
        }
    }

    /**
     * Waits until the server asks the class's login for its password: it reads its {@code
     * pg_hba.conf} again a moment after it is told to.
     */
    private static void awaitPasswordAsked(PgAddress withoutPassword) throws SQLException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (true) {
            try (Connection c = java.sql.DriverManager.getConnection(withoutPassword.jdbcUrl(),
                    withoutPassword.properties())) {
                // Let in without a password: the server has not read the file yet.
            } catch (SQLException e) {
                if ("28P01".equals(e.getSQLState()) || "28000".equals(e.getSQLState())
                        || String.valueOf(e.getMessage()).contains("password")) {
                    return;
                }
                throw e;
            }
            if (System.nanoTime() > deadline) {
                throw new SQLException("the server did not read its pg_hba.conf again within 10 s");
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SQLException("interrupted", e);
            }
        }
    }

    private static boolean checkRights(Postgres server, Connection admin) throws SQLException, BackendException {
        try (Statement s = admin.createStatement(); ResultSet rs = s.executeQuery(SQL.get("rights"))) {
            rs.next();
            boolean superuser = rs.getBoolean(1);
            if (!superuser && !(rs.getBoolean(2) && rs.getBoolean(3))) {
                throw new BackendException(Service.POSTGRES, server.describe() + " does not let user '"
                        + rs.getString(4) + "' create databases and roles, and a class runs in a database of its "
                        + "own, as a login RaceLab makes for it: grant it CREATEDB and CREATEROLE, use a login "
                        + "that has them, or host the class on RaceLab's own servers");
            }
            return superuser;
        }
    }

    /** The address participants log in with: the server's, as the class's login, in its database. */
    PgAddress address() {
        return server.address().withLogin(code.pgName(), password).withDatabase(code.pgName());
    }

    /** Drops the database (ending any session in it) and the login: nothing of the class stays. */
    @Override
    public void close() {
        drop(server, code.pgName(), hba);
    }

    private static void drop(Postgres server, String name, ClassHba hba) {
        HOSTING.remove(name);
        try (Connection admin = server.control("class")) {
            try {
                SQL.runMade(admin, "no-login", name);
            } catch (SQLException e) {
                // Not made, or dropped already: the drops below say what matters.
            }
            try {
                SQL.runMade(admin, "drop-database", name);
                SQL.runMade(admin, "drop-role", name);
            } finally {
                if (hba != null) {
                    hba.remove(admin);
                }
            }
        } catch (SQLException e) {
            // Marked: the next class hosted on this server drops it once its time has passed.
        }
    }

    /**
     * Drops classes whose time has passed by the server's clock; on RaceLab's embedded server, which
     * only this RaceLab uses, every class it is not hosting now (a killed RaceLab's).
     */
    private static void dropLeftovers(Connection admin, boolean ours) throws SQLException {
        List<String> past = new ArrayList<>();
        try (PreparedStatement p = admin.prepareStatement(SQL.get("marked")); ResultSet rs = p.executeQuery()) {
            while (rs.next()) {
                Matcher mark = MARKED.matcher(rs.getString(2));
                boolean hosted = HOSTING.contains(rs.getString(1));
                if (mark.matches() && !hosted && (ours || isPast(admin, mark.group(1)))) {
                    past.add(rs.getString(1));
                }
            }
        }
        for (String name : past) {
            try {
                SQL.runMade(admin, "no-login", name);
                SQL.runMade(admin, "drop-database", name);
                SQL.runMade(admin, "drop-role", name);
            } catch (SQLException e) {
                // Another RaceLab may be dropping it, or this login may not: left for later.
            }
        }
    }

    private static boolean isPast(Connection admin, String instant) throws SQLException {
        try (PreparedStatement p = admin.prepareStatement("SELECT ?::timestamptz < pg_catalog.now()")) {
            p.setString(1, instant);
            try (ResultSet rs = p.executeQuery()) {
                return rs.next() && rs.getBoolean(1);
            }
        } catch (SQLException e) {
            return false;
        }
    }

    private static String later(Connection admin, Duration after) throws SQLException {
        try (PreparedStatement p = admin.prepareStatement(SQL.get("later"))) {
            p.setString(1, after.toSeconds() + " seconds");
            try (ResultSet rs = p.executeQuery()) {
                rs.next();
                return rs.getObject(1, OffsetDateTime.class).toString();
            }
        }
    }


    static String firstLine(Exception e) {
        String message = String.valueOf(e.getMessage());
        int end = message.indexOf('\n');
        return end < 0 ? message : message.substring(0, end);
    }
}
