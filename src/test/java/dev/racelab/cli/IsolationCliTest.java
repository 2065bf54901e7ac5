package dev.racelab.cli;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.racelab.backend.BackendSettings;
import dev.racelab.backend.DataHome;
import dev.racelab.support.TestServers;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code racelab isolation}: transcripts on standard output or in files, the JSON summary, and the
 * exit codes: 2 for a malformed spec (line and column named) before any server is reached, 1 for
 * a server that may not create databases, with nothing left on the server either way.
 */
// Each spec makes and drops a database: nothing else of the build (SilentServerTest counts on its
// timing beside the others) runs beside these.
@Isolated
class IsolationCliTest {

    private static final String LOST_UPDATE = """
            # Two sessions read a balance and write it back plus their deposit.
            setup { CREATE TABLE account (id int PRIMARY KEY, balance int); INSERT INTO account VALUES (1, 100); }
            teardown { DROP TABLE account; }
            session alice
            setup { BEGIN ISOLATION LEVEL REPEATABLE READ; }
            step a_read { SELECT balance FROM account WHERE id = 1; }
            step a_write { UPDATE account SET balance = 110 WHERE id = 1; }
            step a_commit { COMMIT; }
            session bob
            setup { BEGIN ISOLATION LEVEL REPEATABLE READ; }
            step b_read { SELECT balance FROM account WHERE id = 1; }
            step b_write { UPDATE account SET balance = 120 WHERE id = 1; }
            step b_commit { COMMIT; }
            permutation a_read b_read a_write b_write a_commit b_commit
            """;

    @TempDir
    Path dir;

    private record Result(int code, String out, String err) {
    }

    private Result cli(Map<String, String> env, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = new Cli(env, DataHome.resolve(env), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8)).run(List.of(args));
        return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /** Servers where nobody listens: a command that got past its checks would fail to reach them (exit 1). */
    private Map<String, String> nowhere() {
        return Map.of(BackendSettings.PG_ENV, "postgresql://nobody@127.0.0.1:1/nowhere",
                "RACELAB_HOME", dir.resolve("home").toString());
    }

    private Map<String, String> testServer() {
        Map<String, String> env = new HashMap<>(TestServers.childEnvironment());
        env.put("RACELAB_HOME", dir.resolve("home").toString());
        return env;
    }

    private Path spec(String name, String text) throws Exception {
        Path file = dir.resolve(name + ".spec");
        Files.writeString(file, text);
        return file;
    }

    private static void refusedNaming(Result result, String message) {
        assertEquals(2, result.code(), result.err());
        assertEquals("", result.out());
        assertEquals("racelab: " + message + "\n", result.err());
    }

    @Test
    @Tag("engine")
    void malformedSpecsExitTwoNamingTheLineAndColumnBeforeAnyServer() throws Exception {
        Path unknown = spec("unknown", "session s1\nstep a { SELECT 1; }\npermutation a b\n");
        refusedNaming(cli(nowhere(), "isolation", unknown.toString()),
                unknown + ":3:15: the permutation names step b, which no session defines");
        Path brace = spec("brace", "session s1\nstep a { SELECT 1;\n");
        refusedNaming(cli(nowhere(), "isolation", brace.toString()),
                brace + ":2:8: the SQL block opened here has no closing '}'");
        Path twice = spec("twice", "session s1\nstep a { }\nsession s2\nstep a { }\n");
        refusedNaming(cli(nowhere(), "isolation", twice.toString()),
                twice + ":4:6: step a is defined twice (first on line 2): step names are unique across the spec");
        Path empty = spec("empty", "");
        refusedNaming(cli(nowhere(), "isolation", empty.toString()), empty + ":1:1: the spec is empty: it needs at "
                + "least one session (session NAME, then step NAME { SQL })");
    }

    @Test
    @Tag("engine")
    void aBadPermutationOrAMissingFileOrAnEmptyAddressIsBadUsage() throws Exception {
        Path good = spec("good", LOST_UPDATE);
        refusedNaming(cli(nowhere(), "isolation", good.toString(), "--permutation", "a_read zz"),
                "--permutation:1:8: the permutation names step zz, which no session defines (in " + good + ")");
        Result absent = cli(nowhere(), "isolation", dir.resolve("absent.spec").toString());
        assertEquals(2, absent.code());
        assertTrue(absent.err().startsWith("racelab: cannot read " + dir.resolve("absent.spec")
                + ": no such file, nor a teaching spec of that name (g0-dirty-write, "), absent.err());
        refusedNaming(cli(nowhere(), "isolation", good.toString(), "--pg-url", ""),
                "--pg-url is empty: give an address like postgresql://user@localhost:5432/mydb, or leave the option out");
    }

    @Test
    @Tag("lab")
    void printsTheTranscriptWritesItWithOutAndSumsItUpInJson() throws Exception {
        Path file = spec("lost-update", LOST_UPDATE);
        Result printed = cli(testServer(), "isolation", file.toString());
        assertEquals(0, printed.code(), printed.err());
        assertEquals("""
                Parsed test spec with 2 sessions

                starting permutation: a_read b_read a_write b_write a_commit b_commit
                step a_read: SELECT balance FROM account WHERE id = 1;
                balance
                -------
                    100
                (1 row)

                step b_read: SELECT balance FROM account WHERE id = 1;
                balance
                -------
                    100
                (1 row)

                step a_write: UPDATE account SET balance = 110 WHERE id = 1;
                step b_write: UPDATE account SET balance = 120 WHERE id = 1; <waiting ...>
                step a_commit: COMMIT;
                step b_write: <... completed>
                ERROR:  could not serialize access due to concurrent update
                step b_commit: COMMIT;
                """, printed.out());

        Path outDir = dir.resolve("out");
        Result written = cli(testServer(), "isolation", file.toString(), "--out", outDir.toString());
        assertEquals(0, written.code(), written.err());
        assertEquals("", written.out());
        assertEquals(printed.out(), Files.readString(outDir.resolve("lost-update.out")));

        Result json = cli(testServer(), "isolation", file.toString(), "--json", "--permutation",
                "b_read a_read b_write a_write(*) b_commit a_commit");
        assertEquals(0, json.code(), json.err());
        JsonObject spec = JsonParser.parseString(json.out()).getAsJsonObject().getAsJsonArray("specs").get(0)
                .getAsJsonObject();
        JsonArray steps = spec.getAsJsonArray("permutations").get(0).getAsJsonObject().getAsJsonArray("steps");
        List<String> waited = new ArrayList<>();
        List<String> failed = new ArrayList<>();
        steps.forEach(s -> {
            JsonObject step = s.getAsJsonObject();
            if (step.get("waited").getAsBoolean()) {
                waited.add(step.get("step").getAsString());
            }
            if (step.has("error")) {
                failed.add(step.get("step").getAsString() + " " + step.getAsJsonObject("error").get("sqlstate")
                        .getAsString());
            }
        });
        assertEquals(List.of("a_write"), waited);
        assertEquals(List.of("a_write 40001"), failed);
        assertTrue(spec.get("completed").getAsBoolean());
        String scratch = spec.get("scratchDatabase").getAsString();
        assertTrue(scratch.startsWith("racelab_isolation_"), scratch);
        assertFalse(left(scratch), "the run's scratch database and sessions are gone");
    }

    @Test
    @Tag("lab")
    void aTeachingSpecRunsByItsName() {
        Result result = cli(testServer(), "isolation", "p4-lost-update", "--permutation",
                "a_rc b_rc a_read b_read a_deposit b_deposit a_commit b_commit check");
        assertEquals(0, result.code(), result.err());
        assertTrue(result.out().endsWith("""
                step check:\s
                  SELECT balance, 100 + (SELECT coalesce(sum(deposit), 0) FROM ledger) AS should_be,
                         balance <> 100 + (SELECT coalesce(sum(deposit), 0) FROM ledger) AS anomaly
                  FROM account WHERE id = 1;

                balance|should_be|anomaly
                -------+---------+-------
                    120|      130|t     \s
                (1 row)

                """), result.out());
    }

    @Test
    @Tag("lab")
    void aLoginThatMayNotCreateRolesOrDatabasesExitsOneSayingSoAndNamingTheWayOut() throws Exception {
        Path file = spec("lost-update", LOST_UPDATE);
        String monitor = TestServers.postgres().address().secretUrl() + "?options=-c%20role%3Dpg_monitor";
        Result result = cli(testServer(), "isolation", file.toString(), "--pg-url", monitor);
        assertEquals(1, result.code(), result.err());
        assertEquals("", result.out());
        assertTrue(result.err().contains("does not let user 'pg_monitor' create roles or databases"), result.err());
        assertTrue(result.err().contains("--as-login"), result.err());
        // pg_monitor may create no database at all: what could be left is a session of the spec's.
        assertFalse(left(null), "no session of the spec's is left");
    }

    @Test
    @Tag("engine")
    void aServerThatCannotBeReachedStillGivesTheOneJsonObjectNamingWhy() throws Exception {
        Result result = cli(Map.of(), "isolation", "p4-lost-update", "--json", "--pg-url",
                "postgresql://nobody@127.0.0.1:1/x");
        assertEquals(1, result.code(), result.err());
        JsonObject json = JsonParser.parseString(result.out()).getAsJsonObject();
        assertEquals(0, json.getAsJsonArray("specs").size());
        assertEquals("PostgreSQL at 127.0.0.1:1 cannot be reached: connection refused",
                json.get("failure").getAsString());
        assertEquals("racelab: PostgreSQL at 127.0.0.1:1 cannot be reached: connection refused\n", result.err());
    }

    @Test
    @Tag("lab")
    void aSpecThatNeedsMoreThanItsOwnRoleIsRefusedAndRunsAsTheLoginOnlyWithAsLogin() throws Exception {
        try (var c = TestServers.connect(); var s = c.createStatement(); var rs = s.executeQuery("SHOW is_superuser")) {
            rs.next();
            org.junit.jupiter.api.Assumptions.assumeTrue(rs.getString(1).equals("on"), "the login may not read files");
        }
        Path file = spec("reads-files", "session s1\nstep s1a { SELECT pg_read_file('PG_VERSION') IS NOT NULL AS read; }\n");
        Result refused = cli(testServer(), "isolation", file.toString());
        assertEquals(1, refused.code(), refused.err());
        assertTrue(refused.err().contains("needs more: it calls pg_read_file, which not everyone may call")
                && refused.err().contains("--as-login"), refused.err());
        assertEquals("", refused.out(), "nothing ran");
        Result asked = cli(testServer(), "isolation", file.toString(), "--as-login");
        assertEquals(0, asked.code(), asked.err());
        assertTrue(asked.out().contains("read\n----\nt   \n(1 row)"), asked.out());
    }

    /**
     * Whether {@code scratch} (the run's own scratch database, as its summary names it; null for
     * none) or a session of spec lost-update is on the server. Another build's runs on the same
     * server make and drop scratch databases of their own meanwhile: only this run's count.
     */
    private static boolean left(String scratch) throws Exception {
        try (Connection c = TestServers.connect(); java.sql.PreparedStatement p = c.prepareStatement(
                "SELECT count(*) FROM pg_database d WHERE datname = ?"
                        + " OR EXISTS (SELECT 1 FROM pg_stat_activity WHERE application_name LIKE 'isolation/lost-update/%')")) {
            p.setString(1, scratch);
            try (ResultSet rs = p.executeQuery()) {
                rs.next();
                return rs.getInt(1) > 0;
            }
        }
    }
}
