package dev.racelab.cli;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.racelab.backend.BackendSettings;
import dev.racelab.backend.DataHome;
import dev.racelab.isolation.TeachingSpec;
import dev.racelab.support.TestServers;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code racelab isolation --jobs N}: specs side by side, each in its own scratch database, give
 * the transcripts that running them one after another gives, in the order given.
 */
// Each spec makes and drops a database: nothing else of the build runs beside these.
@Isolated
class IsolationLanesTest {

    @TempDir
    Path dir;

    private record Result(int code, String out, String err) {
    }

    private Result cli(String... args) {
        Map<String, String> env = new HashMap<>(TestServers.childEnvironment());
        env.put("RACELAB_HOME", dir.resolve("home").toString());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = new Cli(env, DataHome.resolve(env), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8)).run(List.of(args));
        return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    @Tag("lab")
    void specsSideBySidePrintWhatOneAfterAnotherPrintsInTheOrderGiven() throws Exception {
        // The teaching specs and this one do not wait for safe snapshots nor prepare transactions.
        List<String> specs = new ArrayList<>();
        for (TeachingSpec teaching : TeachingSpec.all()) {
            specs.add(teaching.id());
        }
        // A spec that waits on a lock for a while: the others finish around it.
        Path slow = dir.resolve("slow.spec");
        Files.writeString(slow, """
                setup { CREATE TABLE t (id int PRIMARY KEY); INSERT INTO t VALUES (1); }
                teardown { DROP TABLE t; }
                session s1
                step s1_lock { BEGIN; SELECT id FROM t FOR UPDATE; SELECT pg_sleep(1); }
                step s1_commit { COMMIT; }
                session s2
                step s2_update { UPDATE t SET id = 2; }
                permutation s1_lock s2_update s1_commit
                """);
        specs.add(0, slow.toString());

        List<String> oneByOne = new ArrayList<>(List.of("isolation", "--jobs", "1"));
        oneByOne.addAll(specs);
        List<String> sideBySide = new ArrayList<>(List.of("isolation", "--jobs", "3"));
        sideBySide.addAll(specs);
        List<String> byDefault = new ArrayList<>(List.of("isolation"));
        byDefault.addAll(specs);
        Result alone = cli(oneByOne.toArray(String[]::new));
        Result together = cli(sideBySide.toArray(String[]::new));
        Result lanesPerCore = cli(byDefault.toArray(String[]::new));

        assertEquals(0, alone.code(), alone.err());
        assertEquals(0, together.code(), together.err());
        assertTrue(alone.out().contains("step s2_update: <... completed>"), alone.out());
        assertEquals(alone.out(), together.out(), "the same transcripts, in the same order");
        assertEquals(alone.out(), lanesPerCore.out(), "with a lane per core (the default) too");

        sideBySide.add("--json");
        JsonObject json = JsonParser.parseString(cli(sideBySide.toArray(String[]::new)).out()).getAsJsonObject();
        List<String> names = new ArrayList<>();
        json.getAsJsonArray("specs").forEach(spec -> names.add(spec.getAsJsonObject().get("spec").getAsString()));
        List<String> expected = new ArrayList<>(List.of("slow"));
        TeachingSpec.all().forEach(teaching -> expected.add(teaching.spec().name()));
        assertEquals(expected, names, "the JSON keeps the order given");
    }

    /**
     * A lane runs its next spec in the same scratch database only when the spec before left nothing
     * there: a spec without a teardown leaves its table, and the next, which makes a table of that
     * name, still runs as it would alone (in a database of its own, made anew).
     */
    @Test
    @Tag("lab")
    void aSpecRunsAsItWouldAloneAfterOneThatLeftItsTablesBehind() throws Exception {
        Path leaves = dir.resolve("leaves.spec");
        Files.writeString(leaves, """
                setup { CREATE TABLE left_behind (id int); INSERT INTO left_behind VALUES (1); }
                session s1
                step s1_count { SELECT count(*) FROM left_behind; }
                """);
        Path clean = dir.resolve("clean.spec");
        Files.writeString(clean, """
                setup { CREATE TABLE left_behind (id int); }
                teardown { DROP TABLE left_behind; }
                session s1
                step s1_count { SELECT count(*) FROM left_behind; }
                """);
        Path again = dir.resolve("again.spec");
        Files.writeString(again, Files.readString(clean));

        Result result = cli("isolation", "--jobs", "1", leaves.toString(), clean.toString(), again.toString());

        assertEquals(0, result.code(), result.err());
        String alone = cli("isolation", clean.toString()).out();
        assertTrue(alone.contains("0\n(1 row)"), alone);
        assertEquals(cli("isolation", leaves.toString()).out() + alone + alone, result.out(),
                "each spec as it prints alone: the second did not meet the first's table");
    }

    /**
     * A spec may change its own role for later sessions (a default setting, by SQL it builds as it
     * runs): the next spec does not run as that role, and prints what it prints alone.
     */
    @Test
    @Tag("lab")
    void aSpecThatChangesItsOwnRoleLeavesTheNextSpecAsItWouldRunAlone() throws Exception {
        Path changes = dir.resolve("changes.spec");
        Files.writeString(changes, """
                setup { DO $$BEGIN EXECUTE format('ALTER ROLE %I SET default_transaction_isolation = %L',
                        current_user, 'serializable'); END$$; }
                session s1
                step s1_show { SHOW default_transaction_isolation; }
                """);
        Path shows = dir.resolve("shows.spec");
        Files.writeString(shows, """
                session s1
                step s1_show { SHOW default_transaction_isolation; }
                """);
        String alone = cli("isolation", shows.toString()).out();
        assertTrue(alone.contains("read committed"), alone);

        // One lane: the second spec comes after the first in the same lane.
        Result result = cli("isolation", "--jobs", "1", changes.toString(), shows.toString());

        assertEquals(0, result.code(), result.err());
        assertTrue(result.out().endsWith(alone), result.out());
    }

    /**
     * Each of these specs leaves its table behind, so the next runs in a sandbox whose database and
     * login were made ahead while the one before ran: it is confined as one made for it (its own
     * login, no superuser, no right to create databases or roles, in a database of its own), prints
     * what it prints alone, and once the command returns no database or login of the run stays.
     */
    @Test
    @Tag("lab")
    void specsInSandboxesMadeAheadRunConfinedAndLeaveNothingBehind() throws Exception {
        Path leaves = dir.resolve("leaves.spec");
        Files.writeString(leaves, """
                setup { CREATE TABLE left_behind (id int); }
                session s1
                step s1_who { SELECT r.rolname = current_user AS own_login, r.rolsuper, r.rolcreatedb,
                              r.rolcreaterole, current_database() AS db
                              FROM pg_roles r WHERE r.rolname LIKE 'racelab\\_spec\\_%'
                              AND substr(r.rolname, 14) = substr(current_database(), 19); }
                """);
        List<String> args = new ArrayList<>(List.of("isolation", "--jobs", "2"));
        for (int i = 0; i < 5; i++) {
            args.add(leaves.toString());
        }

        Result result = cli(args.toArray(String[]::new));

        assertEquals(0, result.code(), result.err());
        java.util.regex.Matcher rows = java.util.regex.Pattern
                .compile("(?m)^t *\\|f *\\|f *\\|f *\\|(racelab_isolation_[0-9a-f]{16})$")
                .matcher(result.out());
        List<String> databases = new ArrayList<>();
        while (rows.find()) {
            databases.add(rows.group(1));
        }
        assertEquals(5, databases.size(), result.out());
        assertEquals(5, databases.stream().distinct().count(), "each in a database of its own: " + databases);
        try (java.sql.Connection c = TestServers.connect(); java.sql.Statement st = c.createStatement()) {
            for (String database : databases) {
                String run = database.substring("racelab_isolation_".length());
                try (java.sql.ResultSet rs = st.executeQuery("SELECT (SELECT count(*) FROM pg_database WHERE datname = '"
                        + database + "') + (SELECT count(*) FROM pg_roles WHERE rolname LIKE 'racelab_spec_" + run
                        + "%')")) {
                    rs.next();
                    assertEquals(0, rs.getInt(1), database + " or its login stays on the server");
                }
            }
        }
    }

    @Test
    @Tag("engine")
    void aJobsCountOutsideOneToSixtyFourIsBadUsage() {
        Map<String, String> nowhere = Map.of(BackendSettings.PG_ENV, "postgresql://nobody@127.0.0.1:1/nowhere");
        for (String jobs : List.of("0", "65", "-1", "two")) {
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int code = new Cli(nowhere, dir, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                    new PrintStream(err, true, StandardCharsets.UTF_8))
                    .run(List.of("isolation", "--jobs", jobs, "p4-lost-update"));
            assertEquals(2, code, jobs + ": " + err);
            assertTrue(err.toString(StandardCharsets.UTF_8).contains("--jobs"), err.toString(StandardCharsets.UTF_8));
        }
    }
}
