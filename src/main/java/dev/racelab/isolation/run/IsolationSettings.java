package dev.racelab.isolation.run;

import dev.racelab.backend.PgAddress;
import dev.racelab.backend.wire.WireConnection;
import dev.racelab.backend.wire.WireException;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The session environment PostgreSQL's isolation test driver fixes, so that the server prints
 * dates, intervals, money, byte strings and messages as the expected outputs show them.
 *
 * <p>pg_regress sets {@code PGTZ=PST8PDT} and {@code PGDATESTYLE=Postgres, MDY} and adds {@code -c
 * intervalstyle=postgres_verbose} to {@code PGOPTIONS}, which libpq sends in every startup
 * message; and it creates the test database with {@code lc_messages}, {@code lc_monetary}, {@code
 * lc_numeric}, {@code lc_time} = C, {@code bytea_output = hex} and {@code timezone_abbreviations =
 * Default}. Its isolation driver names sessions {@code isolation/<test>/<session>}.
 */
public final class IsolationSettings {

    private static final Duration LOGIN_BOUND = Duration.ofSeconds(10);

    private IsolationSettings() {
    }

    /** The startup parameters of session {@code session} (or "control connection") of test {@code test}. */
    public static Map<String, String> startup(String test, String session) {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("application_name", "isolation/" + test + "/" + session);
        settings.put("DateStyle", "Postgres, MDY");
        settings.put("TimeZone", "PST8PDT");
        settings.put("IntervalStyle", "postgres_verbose");
        return settings;
    }

    /** A database setting pg_regress makes on its test database. */
    public record DatabaseSetting(String name, String value, boolean superuserOnly) {
    }

    /** The scratch database's own settings, as pg_regress gives its test database. */
    public static List<DatabaseSetting> database() {
        return List.of(
                new DatabaseSetting("lc_messages", "C", true),
                new DatabaseSetting("lc_monetary", "C", false),
                new DatabaseSetting("lc_numeric", "C", false),
                new DatabaseSetting("lc_time", "C", false),
                new DatabaseSetting("bytea_output", "hex", false),
                new DatabaseSetting("timezone_abbreviations", "Default", false));
    }

    /**
     * Connection {@code index} of test {@code test}, for {@code session}, started as PostgreSQL's
     * driver starts it ({@link #startup}), within ten seconds.
     */
    static WireConnection connect(PgAddress address, String database, String test, String session, int index)
            throws IsolationFailure {
        try {
            return WireConnection.open(address, database, startup(test, session), LOGIN_BOUND);
        } catch (WireException e) {
            throw new IsolationFailure("Connection " + index + " failed: " + e.getMessage(), e);
        }
    }
}
