package dev.racelab.labs;

import dev.racelab.engine.Clock;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.lab.Lab;
import dev.racelab.engine.Outcome;
import dev.racelab.engine.Run;
import dev.racelab.engine.Service;
import dev.racelab.engine.Strategy;
import dev.racelab.engine.Verdict;
import dev.racelab.support.TestServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/**
 * RaceLab may be pointed at someone's real server: every lab and strategy must leave everything
 * outside schema {@code racelab} and keys {@code racelab:*} exactly as it found it. The sentinels
 * have names that begin like RaceLab's own, to catch a prefix match that is one character short.
 */
@Tag("lab")
class ServerSafetyTest {

    private static final String SENTINEL_SCHEMA = "racelab_sentinel";
    private static final List<String> SENTINEL_KEYS = List.of("racelab_sentinel", "racelabx:sentinel");
    /** Roles belong to the whole server, where another build may make and drop its own: one of this JVM's. */
    private static final String SENTINEL_ROLE = "racelab_sentinel_" + ProcessHandle.current().pid();

    @BeforeEach
    void plantSentinels() throws Exception {
        try (Connection c = TestServers.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE SCHEMA IF NOT EXISTS " + SENTINEL_SCHEMA);
            s.execute("CREATE TABLE IF NOT EXISTS " + SENTINEL_SCHEMA + ".mark (note text)");
            s.execute("TRUNCATE " + SENTINEL_SCHEMA + ".mark");
            s.execute("INSERT INTO " + SENTINEL_SCHEMA + ".mark VALUES ('untouched')");
            s.execute("DROP ROLE IF EXISTS " + SENTINEL_ROLE);
            s.execute("CREATE ROLE " + SENTINEL_ROLE);
        }
        try (Jedis redis = TestServers.redis().open("test", 5_000)) {
            SENTINEL_KEYS.forEach(key -> redis.set(key, "untouched"));
        }
    }

    @AfterEach
    void removeSentinels() throws Exception {
        try (Connection c = TestServers.connect(); Statement s = c.createStatement()) {
            s.execute("DROP SCHEMA IF EXISTS " + SENTINEL_SCHEMA + " CASCADE");
            s.execute("DROP ROLE IF EXISTS " + SENTINEL_ROLE);
        }
        try (Jedis redis = TestServers.redis().open("test", 5_000)) {
            redis.del(SENTINEL_KEYS.toArray(String[]::new));
        }
    }

    @Test
    void everyLabAndStrategyLeavesEverythingOutsideRacelabAsItWas() throws Exception {
        Set<String> catalogBefore = catalogOutsideRacelab();
        Set<String> keysBefore = keysOutsideRacelab();

        Labs labs = new Labs(TestServers.backends());
        List<String> scratchDatabases = new java.util.ArrayList<>();
        for (Lab lab : labs.all()) {
            if (lab.services().contains(Service.PG_STANDBY)
                    || TestServers.external() && !lab.services().stream().allMatch(Service::shared)) {
                // replica-read touches no shared server (its pair is RaceLab's own); the replication labs
                // refuse servers RaceLab did not start (ReplicationLabsCliTest).
                continue;
            }
            for (Strategy strategy : lab.services().contains(Service.REDIS_SENTINEL)
                    // A failover a run: the strategy that writes the most to the shared PostgreSQL stands for all.
                    ? lab.strategies().stream().filter(s -> s.id().equals("pg-fence")).toList() : lab.strategies()) {
                // Two workers, or as many as the lab must have (an isolation spec: its sessions).
                int workers = Math.min(Math.max(2, lab.minWorkers()), lab.maxWorkers());
                Run run = new Run(lab, lab.defaults().withStrategy(strategy.id()).withWorkers(workers)
                        .withOps(2).withStepMode(false), Clock.system());
                run.start();
                Outcome outcome = run.awaitOutcome(Duration.ofSeconds(60));
                // An isolation spec's run notes the scratch database it made: it must be gone.
                run.record().events().snapshot().stream().filter(e -> e.kind() == EventKind.NOTE)
                        .map(e -> e.subject()).filter(n -> n.startsWith("scratch database "))
                        .forEach(n -> scratchDatabases.add(n.split(" ")[2].replace(",", "")));
                assertNotEquals(Verdict.ERROR, outcome.verdict(), lab.id() + "/" + strategy.id() + ": "
                        + outcome.explanation());
            }
        }

        assertEquals(catalogBefore, catalogOutsideRacelab());
        assertNotEquals(List.of(), scratchDatabases, "the isolation lab's runs noted their scratch databases");
        try (Connection c = TestServers.connect(); java.sql.PreparedStatement p = c.prepareStatement(
                "SELECT datname FROM pg_database WHERE datname = ANY (?)")) {
            p.setArray(1, c.createArrayOf("text", scratchDatabases.toArray()));
            try (ResultSet rs = p.executeQuery()) {
                assertFalse(rs.next(), "a run's scratch database was left");
            }
            try (java.sql.PreparedStatement role = c.prepareStatement("SELECT count(*) FROM pg_roles WHERE rolname = ?")) {
                role.setString(1, SENTINEL_ROLE);
                try (ResultSet rs = role.executeQuery()) {
                    rs.next();
                    assertEquals(1, rs.getInt(1), "the sentinel role is untouched");
                }
            }
        }
        assertEquals(keysBefore, keysOutsideRacelab());
        try (Connection c = TestServers.connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT note FROM " + SENTINEL_SCHEMA + ".mark")) {
            rs.next();
            assertEquals("untouched", rs.getString(1));
        }
        try (Jedis redis = TestServers.redis().open("test", 5_000)) {
            for (String key : SENTINEL_KEYS) {
                assertEquals("untouched", redis.get(key));
            }
        }
    }

    private static Set<String> catalogOutsideRacelab() throws Exception {
        Set<String> objects = new TreeSet<>();
        try (Connection c = TestServers.connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("""
                     SELECT n.nspname || '.' || c.relname || ' ' || c.relkind::text
                     FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                     WHERE n.nspname <> 'racelab' AND n.nspname NOT LIKE 'pg\\_%temp\\_%'
                       AND n.nspname <> 'pg_toast'
                     UNION ALL
                     SELECT n.nspname || '.' || p.proname || '()' FROM pg_proc p
                     JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname <> 'racelab'
                     UNION ALL
                     SELECT 'schema ' || nspname FROM pg_namespace
                     UNION ALL
                     SELECT 'database ' || datname FROM pg_database WHERE datname NOT LIKE 'racelab\\_isolation\\_%'
                     """)) {
            // Scratch databases and roles come and go with other builds' runs on the same server:
            // this run's own scratch databases, and a sentinel role, are checked by name instead.
            while (rs.next()) {
                objects.add(rs.getString(1));
            }
        }
        return objects;
    }

    private static Set<String> keysOutsideRacelab() {
        Set<String> keys = new TreeSet<>();
        try (Jedis redis = TestServers.redis().open("test", 5_000)) {
            String cursor = ScanParams.SCAN_POINTER_START;
            do {
                ScanResult<String> page = redis.scan(cursor, new ScanParams().count(1_000));
                for (String key : page.getResult()) {
                    if (!key.startsWith("racelab:")) {
                        keys.add(key + "=" + redis.type(key));
                    }
                }
                cursor = page.getCursor();
            } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
        }
        return keys;
    }

}
