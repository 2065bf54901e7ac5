package dev.racelab.soak;

import dev.racelab.backend.PgAddress;
import dev.racelab.backend.RedisAddress;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

import java.net.URI;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;

/**
 * The machine's own PostgreSQL and Redis, which other programs (and colleagues' tests) share: the
 * soak's children reach them through a relay each, and the soak checks that RaceLab never touched
 * anything on them outside schema {@code racelab} and keys {@code racelab:}. Before the runs it
 * plants sentinels outside that namespace and lists everything else there is; after them, the
 * sentinels must be as planted and the lists the same. The soak's own sessions are named
 * {@code soak-harness}, never {@code racelab:…}.
 */
final class External {

    static final String SENTINEL_SCHEMA = "soak_sentinel";
    static final String SENTINEL_KEY = "soak:sentinel";
    /** What {@code ServerSafetyTest} plants and removes; a colleague's build may run it meanwhile. */
    private static final List<String> OTHER_TESTS_SENTINELS = List.of("racelab_sentinel", "racelabx:sentinel");

    private final PgAddress postgres;
    private final RedisAddress redis;
    private final String mark = "untouched " + UUID.randomUUID();
    private Set<String> catalogBefore;
    private Set<String> keysBefore;

    External(PgAddress postgres, RedisAddress redis) {
        this.postgres = postgres;
        this.redis = redis;
    }

    /** Whether both servers answer; if not, the soak uses embedded servers alone and says why. */
    String unreachable() {
        try (Connection c = connect(); Jedis jedis = jedis()) {
            c.createStatement().execute("SELECT 1");
            jedis.ping();
            return null;
        } catch (Exception e) {
            return e.getMessage();
        }
    }

    PgAddress postgres() {
        return postgres;
    }

    RedisAddress redis() {
        return redis;
    }

    /** A session of the soak's own, straight to the server (not through a relay). */
    Connection connect() throws SQLException {
        Properties props = postgres.properties();
        props.setProperty("ApplicationName", "soak-harness");
        props.setProperty("connectTimeout", "5");
        props.setProperty("socketTimeout", "10");
        return DriverManager.getConnection(postgres.jdbcUrl(), props);
    }

    Jedis jedis() {
        Jedis jedis = new Jedis(URI.create(redis.secretUrl()), 5_000);
        jedis.clientSetname("soak-harness");
        return jedis;
    }

    void plantSentinels() throws Exception {
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.execute("CREATE SCHEMA IF NOT EXISTS " + SENTINEL_SCHEMA);
            s.execute("CREATE TABLE IF NOT EXISTS " + SENTINEL_SCHEMA + ".t (note text)");
            s.execute("TRUNCATE " + SENTINEL_SCHEMA + ".t");
            try (PreparedStatement insert = c.prepareStatement("INSERT INTO " + SENTINEL_SCHEMA + ".t VALUES (?)")) {
                insert.setString(1, mark);
                insert.executeUpdate();
            }
        }
        try (Jedis jedis = jedis()) {
            jedis.set(SENTINEL_KEY, mark);
        }
        catalogBefore = catalogOutsideRacelab();
        keysBefore = keysOutsideRacelab();
    }

    /** What changed outside RaceLab's namespace since {@link #plantSentinels}, in lines; empty if nothing. */
    List<String> changesOutsideRacelab() throws Exception {
        List<String> changes = new ArrayList<>();
        try (Connection c = connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT note FROM " + SENTINEL_SCHEMA + ".t")) {
            List<String> notes = new ArrayList<>();
            while (rs.next()) {
                notes.add(rs.getString(1));
            }
            if (!notes.equals(List.of(mark))) {
                changes.add("PostgreSQL sentinel " + SENTINEL_SCHEMA + ".t holds " + notes + ", not [" + mark + "]");
            }
        } catch (SQLException e) {
            changes.add("PostgreSQL sentinel " + SENTINEL_SCHEMA + ".t cannot be read: " + e.getMessage());
        }
        try (Jedis jedis = jedis()) {
            String value = jedis.get(SENTINEL_KEY);
            if (!mark.equals(value)) {
                changes.add("Redis sentinel " + SENTINEL_KEY + " holds " + value + ", not " + mark);
            }
            long ttl = jedis.ttl(SENTINEL_KEY);
            if (ttl != -1) {
                changes.add("Redis sentinel " + SENTINEL_KEY + " has a time to live now (" + ttl + ")");
            }
        }
        differences("PostgreSQL object", catalogBefore, catalogOutsideRacelab(), changes);
        differences("Redis key", keysBefore, keysOutsideRacelab(), changes);
        return changes;
    }

    void removeSentinels() throws Exception {
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.execute("DROP SCHEMA IF EXISTS " + SENTINEL_SCHEMA + " CASCADE");
        }
        try (Jedis jedis = jedis()) {
            jedis.del(SENTINEL_KEY);
        }
    }

    private static void differences(String what, Set<String> before, Set<String> after, List<String> changes) {
        for (String gone : before) {
            if (!after.contains(gone)) {
                changes.add(what + " gone: " + gone);
            }
        }
        for (String made : after) {
            if (!before.contains(made)) {
                changes.add(what + " made: " + made);
            }
        }
    }

    /** Databases, roles, schemas, relations and functions outside schema racelab (temporary schemas left out). */
    private Set<String> catalogOutsideRacelab() throws SQLException {
        Set<String> objects = new TreeSet<>();
        try (Connection c = connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("""
                     SELECT 'database ' || datname FROM pg_database
                     UNION ALL
                     SELECT 'role ' || rolname FROM pg_roles
                     UNION ALL
                     SELECT 'schema ' || nspname FROM pg_namespace
                     WHERE nspname <> 'racelab' AND nspname NOT LIKE 'pg\\_%temp\\_%'
                     UNION ALL
                     SELECT n.nspname || '.' || c.relname || ' ' || c.relkind::text
                     FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                     WHERE n.nspname <> 'racelab' AND n.nspname NOT LIKE 'pg\\_%temp\\_%' AND n.nspname <> 'pg_toast'
                     UNION ALL
                     SELECT n.nspname || '.' || p.proname || '()' FROM pg_proc p
                     JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname <> 'racelab'
                     """)) {
            while (rs.next()) {
                String object = rs.getString(1);
                if (OTHER_TESTS_SENTINELS.stream().noneMatch(object::contains)) {
                    objects.add(object);
                }
            }
        }
        return objects;
    }

    private Set<String> keysOutsideRacelab() {
        Set<String> keys = new TreeSet<>();
        try (Jedis jedis = jedis()) {
            String cursor = ScanParams.SCAN_POINTER_START;
            do {
                ScanResult<String> page = jedis.scan(cursor, new ScanParams().count(1_000));
                for (String key : page.getResult()) {
                    if (!key.startsWith("racelab:") && !OTHER_TESTS_SENTINELS.contains(key)) {
                        keys.add(key + " (" + jedis.type(key) + ")");
                    }
                }
                cursor = page.getCursor();
            } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
        }
        return keys;
    }
}
