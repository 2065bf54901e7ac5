package dev.racelab.classroom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.racelab.backend.BackendException;
import dev.racelab.backend.PgAddress;
import dev.racelab.backend.Postgres;
import dev.racelab.backend.Redis;
import dev.racelab.backend.RedisAddress;
import dev.racelab.backend.wire.Passwords;
import dev.racelab.support.TestServers;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * A class's credentials, tried: inside the class they do what a lab needs; outside it (other
 * databases and schemas, other keys, the servers' settings, flushing, making roles, becoming the
 * server's own user) they are refused by the servers themselves; after the class nothing of it is
 * left.
 */
@Tag("it")
class ClassConfinementTest {

    @Test
    void theClassLoginUsesItsOwnDatabaseAndNothingElse() throws Exception {
        // RaceLab's own servers, and the suite's (named ones, when CI runs against them).
        for (Postgres server : TestServers.external()
                ? new Postgres[] {TestServers.topologies().postgres(), TestServers.postgres()}
                : new Postgres[] {TestServers.postgres()}) {
            try (Connection admin = server.control("test-class")) {
                admin.createStatement().execute("CREATE SCHEMA IF NOT EXISTS racelab; "
                        + "CREATE TABLE IF NOT EXISTS racelab.class_probe (x int)");
            }
            ClassCode code = ClassCode.random();
            PgAddress login;
            try (ClassDatabase db = ClassDatabase.make(server, code, Passwords.typable(16), 8, ClassRoom.LIFETIME)) {
                login = db.address();
                assertEquals(code.pgName(), login.user());
                try (Connection in = connect(login); Statement s = in.createStatement()) {
                    s.execute("CREATE SCHEMA racelab; CREATE TABLE racelab.counters (v int); "
                            + "INSERT INTO racelab.counters VALUES (1)");
                    assertRefused(s, "CREATE ROLE intruder");
                    assertRefused(s, "CREATE DATABASE intruder");
                    assertRefused(s, "ALTER SYSTEM SET work_mem = '1MB'");
                    assertRefused(s, "COPY (SELECT 1) TO PROGRAM 'true'");
                    assertRefused(s, "SELECT pg_catalog.pg_read_file('postgresql.conf')");
                    assertRefused(s, "SET ROLE " + server.address().user());
                }
                String home = server.address().database();
                if (server.embedded()) {
                    // Its lines in pg_hba.conf: its own database only, and never without its password.
                    assertThrows(SQLException.class, () -> connect(login.withDatabase(home)).close(),
                            "the class login is kept out of " + home);
                    assertThrows(SQLException.class, () -> connect(login.withLogin(login.user(), null)).close(),
                            "the class login needs its password");
                } else {
                    try (Connection other = connect(login.withDatabase(home)); Statement s = other.createStatement()) {
                        assertRefused(s, "SELECT * FROM racelab.class_probe");
                        assertRefused(s, "INSERT INTO racelab.class_probe VALUES (1)");
                        assertRefused(s, "CREATE TABLE public.intruder (x int)");
                    }
                }
            }
            try (Connection admin = server.control("test-class"); Statement s = admin.createStatement()) {
                assertFalse(exists(s, "SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = '" + code.pgName() + "'"),
                        "the class's login is gone");
                assertFalse(exists(s, "SELECT 1 FROM pg_catalog.pg_database WHERE datname = '" + code.pgName() + "'"),
                        "the class's database is gone");
                s.execute("DROP TABLE racelab.class_probe");
            }
            assertThrows(SQLException.class, () -> connect(login).close(), "nobody logs in as the class any more");
        }
    }

    @Test
    void theClassUserTouchesOnlyTheClassKeys() throws Exception {
        Redis server = TestServers.topologies().redis();
        ClassCode code = ClassCode.random();
        ClassCode other = ClassCode.random();
        try (Jedis admin = server.open("test-class", 5_000)) {
            admin.set("racelab:elsewhere", "1");
            admin.set(other.key("theirs"), "1");
        }
        // A killed host's class: its user is there, its host's alive key is not. The next class removes it.
        ClassCode killed = ClassCode.random();
        try (Jedis admin = server.open("test-class", 5_000)) {
            admin.aclSetUser(killed.redisUser(), "on", ">" + Passwords.typable(16), "~" + killed.key("events"));
            admin.xadd(killed.key("events"), redis.clients.jedis.StreamEntryID.NEW_ENTRY, java.util.Map.of("a", "1"));
        }
        RedisAddress login;
        try (ClassRedisUser user = ClassRedisUser.make(server, code, Passwords.typable(16)); Jedis in = connect(user.address())) {
            login = user.address();
            assertEquals("OK", in.psetex(code.key("alive:ada"), 60_000, "1"));
            in.xadd(code.key("events"), redis.clients.jedis.StreamEntryID.NEW_ENTRY, java.util.Map.of("a", "1"));
            assertEquals(1L, in.expire(code.key("events"), 60));
            // Only what a class's machines send, only to the class's own keys, never a key without an expiry.
            assertRefused(() -> in.set(code.key("alive:ada"), "1"));
            assertRefused(() -> in.set(code.key("counter"), "1"));
            assertRefused(() -> in.eval("return 1"));
            assertRefused(() -> in.scan("0"));
            assertRefused(in::randomKey);
            assertRefused(in::dbSize);
            assertRefused(() -> in.select(1));
            assertRefused(() -> in.subscribe(new redis.clients.jedis.JedisPubSub() { }, code.key("x")));
            assertRefused(() -> in.get("racelab:elsewhere"));
            assertRefused(() -> in.set(other.key("theirs"), "2"));
            assertRefused(() -> in.publish("racelab:elsewhere", "hi"));
            assertRefused(() -> in.configGet("*"));
            assertRefused(in::flushAll);
            assertRefused(() -> in.keys("*"));
            assertRefused(() -> in.aclSetUser("intruder", "on", "nopass", "+@all", "~*"));
            assertRefused(() -> in.auth("default", "guess"));
            // Still the class's user: its keys and nothing else.
            assertEquals("OK", in.psetex(code.key("alive:bea"), 60_000, "1"));
            assertRefused(() -> in.get("racelab:elsewhere"));
        }
        try (Jedis admin = server.open("test-class", 5_000)) {
            assertFalse(admin.aclUsers().contains(code.redisUser()), "the class's user is gone");
            assertFalse(admin.exists(code.key("events")) || admin.exists(code.key("alive:ada")), "the class's keys are gone");
            assertTrue(admin.exists(other.key("theirs")), "another class's keys are untouched");
            assertFalse(admin.aclUsers().contains(killed.redisUser()), "a killed host's class user is removed");
            assertFalse(admin.exists(killed.key("events")), "and its keys");
            admin.del("racelab:elsewhere", other.key("theirs"));
        }
        assertThrows(JedisDataException.class, () -> connect(login).close(), "nobody logs in as the class any more");
    }

    @Test
    void theDoorsLetInOnlyTheClassLogin() throws Exception {
        var servers = TestServers.topologies();
        try (ClassRoom room = ClassRoom.open(servers.postgres(), servers.redis(), ClassCode.random(), 8)) {
            room.openDoors(java.net.InetAddress.getLoopbackAddress());
            JoinLine line = room.joinLine();
            assertTrue(line.pgPort() != servers.postgres().address().port(), "a door, not the server itself");
            // The embedded server trusts its own machine: through the door, its superuser is turned away.
            PgAddress superuser = new PgAddress("127.0.0.1", line.pgPort(), "postgres", "postgres", null, java.util.Map.of());
            SQLException refused = assertThrows(SQLException.class, () -> connect(superuser).close());
            assertTrue(refused.getMessage().contains("only the class's own login"), refused.getMessage());
            assertThrows(SQLException.class, () -> connect(line.postgres().withDatabase("postgres")).close(),
                    "the class login, to another database");
            assertThrows(SQLException.class, () -> connect(line.postgres().withLogin(line.postgres().user(), "guess"))
                    .close(), "the class login, with a wrong password");
            java.util.Properties replication = line.postgres().properties();
            replication.setProperty("replication", "database");
            replication.setProperty("assumeMinServerVersion", "9.4");
            replication.setProperty("preferQueryMode", "simple");
            assertThrows(SQLException.class, () -> DriverManager.getConnection(line.postgres().jdbcUrl(), replication)
                    .close(), "the class login, for replication");
            try (Connection in = connect(line.postgres()); Statement st = in.createStatement()) {
                assertTrue(st.execute("SELECT 1"));
            }
            try (Jedis anyone = new Jedis("127.0.0.1", line.redisPort(), 2_000)) {
                JedisDataException e = assertThrows(JedisDataException.class, anyone::ping);
                assertTrue(e.getMessage().startsWith("NOAUTH"), e.getMessage());
            }
            try (Jedis in = connect(line.redis())) {
                assertEquals("OK", in.psetex(room.code().key("alive:x"), 5_000, "1"));
            }
        }
    }

    @Test
    void aRedisThatLetsAnyoneInAsDefaultIsRefused() throws Exception {
        Redis server = TestServers.redis();
        try (Jedis admin = server.open("test-class", 5_000)) {
            assumeTrue(admin.aclGetUser("default").getFlags().contains("nopass"), "the suite's Redis has a password");
        }
        BackendException refused = assertThrows(BackendException.class,
                () -> ClassRedisUser.make(server, ClassCode.random(), Passwords.typable(16)));
        assertTrue(refused.getMessage().contains("'default' without a password"), refused.getMessage());
    }

    private static Connection connect(PgAddress address) throws SQLException {
        return DriverManager.getConnection(address.jdbcUrl(), address.properties());
    }

    private static Jedis connect(RedisAddress address) {
        Jedis jedis = new Jedis(new HostAndPort(address.host(), address.port()), DefaultJedisClientConfig.builder()
                .user(address.user()).password(secret(address)).build());
        jedis.connect();
        return jedis;
    }

    /** The password, as RaceLab hands it to a client (its own only; never printed). */
    private static String secret(RedisAddress address) {
        String url = address.secretUrl();
        String info = url.substring(url.indexOf("//") + 2, url.lastIndexOf('@'));
        return java.net.URLDecoder.decode(info.substring(info.indexOf(':') + 1), java.nio.charset.StandardCharsets.UTF_8);
    }

    private static void assertRefused(Statement s, String sql) {
        SQLException e = assertThrows(SQLException.class, () -> s.execute(sql), sql);
        assertTrue(e.getSQLState().equals("42501") || e.getSQLState().equals("0LP01") || e.getSQLState().equals("42704")
                || e.getSQLState().equals("22023"), sql + ": " + e.getSQLState() + " " + e.getMessage());
    }

    private static void assertRefused(Runnable command) {
        JedisDataException e = assertThrows(JedisDataException.class, command::run);
        assertTrue(e.getMessage().startsWith("NOPERM") || e.getMessage().startsWith("WRONGPASS"), e.getMessage());
    }

    private static boolean exists(Statement s, String sql) throws SQLException {
        try (ResultSet rs = s.executeQuery(sql)) {
            return rs.next();
        }
    }
}
