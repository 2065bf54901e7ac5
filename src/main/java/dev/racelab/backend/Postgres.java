package dev.racelab.backend;

import dev.racelab.engine.Service;
import org.postgresql.PGConnection;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * A PostgreSQL server RaceLab can use: an existing one at an address, or the embedded one it
 * started. Every connection it opens carries an {@code application_name} beginning with
 * {@code racelab:}, so {@code pg_stat_activity} tells RaceLab's sessions, and which worker owns
 * each, apart from everyone else's.
 */
public final class Postgres implements AutoCloseable {

    /** The prefix of every RaceLab session's {@code application_name}. */
    public static final String APP_PREFIX = "racelab:";
    /** The only schema RaceLab creates anything in. */
    public static final String SCHEMA = "racelab";

    /** How long a login may take, connecting included, unless {@code --connect-timeout} (or the URL) says. */
    public static final Duration LOGIN_DEFAULT = Duration.ofSeconds(10);
    /** How long RaceLab's own sessions wait for any reply before they call the server silent. */
    public static final int CONTROL_TIMEOUT_SECONDS = 10;
    /** SQLSTATE insufficient_privilege. */
    private static final String INSUFFICIENT_PRIVILEGE = "42501";
    /** How long a probe may take before the server is called silent. */
    public static final int PROBE_TIMEOUT_SECONDS = 5;

    private final PgAddress address;
    private final String description;
    private final AutoCloseable server;
    /** The login bound {@code --connect-timeout} gave, or null: the URL's, else {@link #LOGIN_DEFAULT}. */
    private final Duration login;
    /** Sessions kept between runs, while an exploration asks for it. */
    private final SessionKeeper keeper = new SessionKeeper();

    private Postgres(PgAddress address, String description, AutoCloseable server, Duration login) {
        this.address = address;
        this.description = description;
        this.server = server;
        this.login = login;
    }

    /**
     * Connects to an existing server and checks that RaceLab can work there: that it answers,
     * accepts the login, and lets RaceLab create its schema and its tables there.
     */
    public static Postgres connect(PgAddress address) throws BackendException {
        return connect(address, null);
    }

    /** As {@link #connect(PgAddress)}, every login bounded by {@code login} (null: the URL's, else the default). */
    public static Postgres connect(PgAddress address, Duration login) throws BackendException {
        return open(address, null, "PostgreSQL %s at " + address.host() + ":" + address.port(), true, login);
    }

    /**
     * Connects to an existing server and checks only that it answers and accepts the login: for
     * work that creates nothing in the server's database (isolation specs run in a scratch
     * database of their own), so a login without rights in schema {@value #SCHEMA} may do it.
     */
    public static Postgres reach(PgAddress address) throws BackendException {
        return open(address, null, "PostgreSQL %s at " + address.host() + ":" + address.port(), false, null);
    }

    /** A hot standby RaceLab runs: it answers and lets its login in; nothing is created there (it is read-only). */
    static Postgres standby(PgAddress address, String descriptionFormat, Duration login) throws BackendException {
        return open(address, null, descriptionFormat, false, login);
    }

    static Postgres open(PgAddress address, AutoCloseable server, String descriptionFormat, Duration login)
            throws BackendException {
        return open(address, server, descriptionFormat, true, login);
    }

    private static Postgres open(PgAddress address, AutoCloseable server, String descriptionFormat,
                                 boolean withSchema, Duration login) throws BackendException {
        try (Connection c = connect(address, APP_PREFIX + "setup", CONTROL_TIMEOUT_SECONDS, login);
             Statement s = c.createStatement()) {
            String version;
            try (ResultSet rs = s.executeQuery("SHOW server_version")) {
                rs.next();
                version = rs.getString(1).split(" ")[0];
            }
            if (!withSchema) {
                return new Postgres(address, String.format(descriptionFormat, version), server, login);
            }
            try {
                s.execute("CREATE SCHEMA IF NOT EXISTS " + SCHEMA);
            } catch (SQLException e) {
                if (!INSUFFICIENT_PRIVILEGE.equals(e.getSQLState())) {
                    throw e;
                }
                throw new BackendException(Service.POSTGRES, where(address) + " does not let user '" + address.user()
                        + "' create schema " + SCHEMA + ": " + firstLine(e), e);
            }
            checkSchemaRights(address, s);
            return new Postgres(address, String.format(descriptionFormat, version), server, login);
        } catch (SQLException e) {
            throw explain(address, e, "cannot be used");
        }
    }

    /**
     * The schema may be someone else's (made by an administrator, or by another login): RaceLab's
     * login needs to use it and create its tables there, or every run would end in an error
     * instead of the command naming the server and what it refused.
     */
    private static void checkSchemaRights(PgAddress address, Statement s) throws SQLException, BackendException {
        try (ResultSet rs = s.executeQuery("SELECT has_schema_privilege(oid, 'USAGE'), "
                + "has_schema_privilege(oid, 'CREATE'), pg_get_userbyid(nspowner) FROM pg_namespace "
                + "WHERE nspname = '" + SCHEMA + "'")) {
            if (!rs.next()) {
                throw new BackendException(Service.POSTGRES, where(address) + " has no schema " + SCHEMA
                        + " after creating it");
            }
            List<String> missing = new ArrayList<>();
            if (!rs.getBoolean(1)) {
                missing.add("USAGE");
            }
            if (!rs.getBoolean(2)) {
                missing.add("CREATE");
            }
            if (!missing.isEmpty()) {
                throw new BackendException(Service.POSTGRES, where(address) + " does not let user '" + address.user()
                        + "' create tables in schema " + SCHEMA + " (it belongs to '" + rs.getString(3)
                        + "', and the user lacks " + String.join(" and ", missing) + " on it): grant them, "
                        + "or use the schema's owner");
            }
        }
    }

    private static String where(PgAddress address) {
        return "PostgreSQL at " + address.host() + ":" + address.port();
    }

    /**
     * Opens a worker's session, named {@code racelab:<name>}. Connecting and logging in are
     * bounded; a statement may wait as long as the lab makes it (for a row lock a delayed worker
     * holds, say): the run's own timeout judges a worker that waits for ever, and stopping the run
     * cuts its connection.
     */
    public Connection connect(String name) throws SQLException {
        return keeper.lend(name + "|worker", () -> connect(address, APP_PREFIX + name, 0, login));
    }

    /**
     * Opens a worker's session as {@link #connect(String)} does, never one kept between runs: for a
     * connection pool's sessions, which the pool opens, tests and closes on threads of its own.
     */
    public Connection connectUnkept(String name) throws SQLException {
        return connect(address, APP_PREFIX + name, 0, login);
    }

    /**
     * Opens a session of RaceLab's own (setting up, judging, observing, cleaning up), in which
     * every reply is awaited at most {@link #CONTROL_TIMEOUT_SECONDS}: a server that accepts
     * connections and then never answers makes these calls fail, not hang.
     */
    public Connection control(String name) throws SQLException {
        return keeper.lend(name + "|control", () -> connect(address, APP_PREFIX + name, CONTROL_TIMEOUT_SECONDS, login));
    }

    /**
     * Keeps the sessions runs close, reset, for the runs after them ({@link SessionKeeper}): on
     * while many short runs follow each other; off closes what is kept.
     */
    public void keepSessions(boolean on) {
        keeper.keep(on);
    }

    /** The backend pids of sessions kept between runs: meant to be there while keeping is on. */
    Set<Integer> keptPids() {
        return keeper.idlePids();
    }

    /**
     * This server reached at {@code other} (another login, another database: a sandbox's), for a
     * run's sessions there ({@link PgSessions}, observers): within this server's login bound, its
     * sessions never kept between runs. Closing it closes no server.
     */
    public Postgres at(PgAddress other) {
        return new Postgres(other, description, null, login);
    }

    /**
     * A session at {@code address} (another login, another database: a sandbox's), named {@code
     * racelab:<name>}, within this server's login bound, never kept between runs.
     */
    public Connection connectAs(PgAddress address, String name) throws SQLException {
        return connect(address, APP_PREFIX + name, 0, login);
    }

    /** A session of RaceLab's own, as {@link #control(String)}, in another database of the same server. */
    public Connection control(String name, String database) throws SQLException {
        return connect(address.withDatabase(database), APP_PREFIX + name, CONTROL_TIMEOUT_SECONDS, login);
    }

    static Connection connect(PgAddress address, String applicationName, int socketTimeoutSeconds,
                              Duration login) throws SQLException {
        Properties props = address.properties();
        props.setProperty("ApplicationName", applicationName);
        bound(props, login);
        props.putIfAbsent("tcpKeepAlive", "true");
        if (socketTimeoutSeconds > 0) {
            props.setProperty("socketTimeout", String.valueOf(socketTimeoutSeconds));
        }
        return login(address, props);
    }

    /** Bounds connecting and logging in by {@code login} if given, else as the URL says, else by the default. */
    private static void bound(Properties props, Duration login) {
        if (login != null) {
            props.setProperty("connectTimeout", String.valueOf(login.toSeconds()));
            props.setProperty("loginTimeout", String.valueOf(login.toSeconds()));
        }
        props.putIfAbsent("connectTimeout", String.valueOf(LOGIN_DEFAULT.toSeconds()));
        props.putIfAbsent("loginTimeout", String.valueOf(LOGIN_DEFAULT.toSeconds()));
    }

    /**
     * Opens a session. A login that ran out its bound against a server that takes connections is a
     * {@link SlowLogin}: an overloaded machine answers late, and calling it unreachable would send
     * the user looking for the wrong problem.
     */
    private static Connection login(PgAddress address, Properties props) throws SQLException {
        long began = System.nanoTime();
        try {
            return DriverManager.getConnection(address.jdbcUrl(), props);
        } catch (SQLException e) {
            long bound = Long.parseLong(props.getProperty("loginTimeout", "0"));
            boolean ranOut = "08001".equals(e.getSQLState())
                    && System.nanoTime() - began >= TimeUnit.SECONDS.toNanos(bound) - TimeUnit.MILLISECONDS.toNanos(500);
            if (ranOut && Reasons.takesConnections(address.host(), address.port())) {
                throw new SlowLogin(bound, e);
            }
            throw e;
        }
    }

    /** A login that did not finish within its bound on a server that takes connections: slow, not unreachable. */
    static final class SlowLogin extends SQLException {
        SlowLogin(long seconds, SQLException cause) {
            super("is slow to answer: it took the connection but did not finish the login within " + seconds
                    + " s (a busy machine, or a stopped server)", "08001",
                    cause);
        }
    }

    /**
     * Checks that the server still answers, with a fresh session, within {@link
     * #PROBE_TIMEOUT_SECONDS}: after a run that failed or stalled, it may have died or frozen.
     */
    public void probe() throws BackendException {
        Properties props = address.properties();
        props.setProperty("ApplicationName", APP_PREFIX + "probe");
        // A probe asks whether a server that failed a run still answers: its own short bound, unless
        // --connect-timeout gave one (a busy machine's slow login is said to be slow, either way).
        bound(props, login == null ? Duration.ofSeconds(PROBE_TIMEOUT_SECONDS) : login);
        props.setProperty("socketTimeout", String.valueOf(PROBE_TIMEOUT_SECONDS));
        try (Connection c = login(address, props); Statement s = c.createStatement()) {
            s.execute("SELECT 1");
        } catch (SQLException e) {
            throw explain(address, e, "stopped answering");
        }
    }

    /**
     * Reads what the server sent {@code session} unasked, without sending anything: a server that
     * ends a session (terminated, shutting down, another backend crashed) says so in a message that
     * waits on the socket, thrown here as the server's error. Quiet for a session that is well, and
     * for one busy in a transaction or a statement (it waits for the statement's end: that
     * statement meets any failure itself). For a session left idle, which would otherwise learn of
     * its end only when next used. Safe beside the session's user: pgjdbc takes the session's lock.
     */
    public static void readUnasked(Connection session) throws SQLException {
        session.unwrap(PGConnection.class).getNotifications();
    }

    public PgAddress address() {
        return address;
    }

    /** What serves PostgreSQL, for status bars and summaries: no credentials. */
    public String describe() {
        return description;
    }

    public boolean embedded() {
        return server != null;
    }

    /**
     * If {@code failure} is this server ending or losing one of RaceLab's sessions, a sentence
     * naming the server and the cause; empty for any other failure (a lock or serialization
     * failure, a lab's own error). The server ended the session when it says so (SQLState 57P01:
     * terminated, or shut down; 57P02: another server process crashed and the server restarts;
     * 57P03: it accepts no session now) or the connection broke under a statement (class 08:
     * reset, closed, an I/O error, no answer in time). Asks the server nothing: it may be back
     * already (PostgreSQL restarts every backend after one crashed), which does not undo the run's
     * loss.
     */
    public Optional<String> lostSession(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof SQLException e) {
                Optional<String> lost = lostSession(address, e);
                if (lost.isPresent()) {
                    return lost;
                }
            }
        }
        return Optional.empty();
    }

    private static Optional<String> lostSession(PgAddress address, SQLException e) {
        String where = "PostgreSQL at " + address.host() + ":" + address.port();
        String state = e.getSQLState() == null ? "" : e.getSQLState();
        String reason = firstLine(e);
        return Optional.ofNullable(switch (state) {
            case "57P01" -> where + " ended the session: it was terminated, or the server is shutting down ("
                    + reason + ")";
            case "57P02" -> where + " ended the session: a server process crashed and the server restarted ("
                    + reason + ")";
            case "57P03" -> where + " refused a session: it is starting up, shutting down or recovering from a "
                    + "crash (" + reason + ")";
            case "08001", "08004" -> e instanceof SlowLogin ? where + " " + e.getMessage()
                    : where + " cannot be reached: " + reason;
            default -> state.startsWith("08") ? where + " lost the session: the connection broke (" + reason + ")"
                    : null;
        });
    }

    /**
     * Whether {@code failure} is a reply that did not come in time: a socket's read timed out, or a
     * login ran out its bound on a server that took the connection.
     */
    public static boolean timedOut(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof java.net.SocketTimeoutException || cause instanceof SlowLogin) {
                return true;
            }
        }
        return false;
    }

    /** A sentence for a refusal that makes this server unusable for RaceLab as it is (someone else's object in the way). */
    public String cannotBeUsed(SQLException e) {
        return explain(address, e, "cannot be used").getMessage();
    }

    /** A sentence for a failure talking to this server. */
    public String explain(SQLException e) {
        return explain(address, e, "failed").getMessage();
    }

    static BackendException explain(PgAddress address, SQLException e, String verb) {
        String where = where(address);
        String state = e.getSQLState() == null ? "" : e.getSQLState();
        String reason = firstLine(e);
        String message;
        if (e instanceof SlowLogin) {
            message = where + " " + e.getMessage();
        } else if (state.startsWith("08")) {
            message = where + " cannot be reached: " + reason;
        } else if (state.equals("28P01") || state.equals("28000")) {
            message = where + " refused the login of user '" + address.user() + "': " + reason;
        } else if (state.equals("3D000")) {
            message = where + " has no database '" + address.database() + "'";
        } else if (state.equals(INSUFFICIENT_PRIVILEGE)) {
            message = where + " refused user '" + address.user() + "': " + reason;
        } else if (state.equals("57P01") || state.equals("57P02") || state.equals("57P03")) {
            message = where + " is shutting down or restarting: " + reason;
        } else {
            message = where + " " + verb + ": " + reason;
        }
        return new BackendException(Service.POSTGRES, message, e);
    }

    private static String firstLine(SQLException e) {
        String network = Reasons.network(e);
        if (network != null) {
            return network;
        }
        String text = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        int newline = text.indexOf('\n');
        return (newline < 0 ? text : text.substring(0, newline)).replaceFirst("^(FATAL|ERROR): ", "").strip();
    }

    /** Stops the embedded server, if this is one. */
    @Override
    public void close() throws Exception {
        keeper.keep(false);
        if (server != null) {
            server.close();
        }
    }

    @Override
    public String toString() {
        return description;
    }
}
