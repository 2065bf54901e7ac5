package dev.racelab.isolation.run;

import dev.racelab.backend.BackendException;
import dev.racelab.backend.PgAddress;
import dev.racelab.backend.Postgres;
import dev.racelab.isolation.Spec;
import dev.racelab.isolation.SpecReader;
import dev.racelab.support.Poll;
import dev.racelab.support.TestServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A spec runs as a role that owns its scratch database and nothing else, even when RaceLab's
 * login is a superuser: what a hostile spec does to reach beyond that database is refused by the
 * server, and nothing outside changes (another database's table, a role, the server's files).
 */
@Tag("lab")
// Each spec makes and drops a database and roles: nothing else of the build runs beside these.
@Isolated
class SpecConfinementTest {

    private static final SpecRunner.Options PATIENT = SpecRunner.Options.DEFAULTS;
    private final String own = "racelab_test_" + ProcessHandle.current().pid();
    /** A table of this test's in the login's own database, which no spec may touch. */
    private final String sentinel = own + "_sentinel";
    /** A role of this test's, which no spec may change. */
    private final String target = own + "_target";
    private final Path pwned = Path.of(System.getProperty("java.io.tmpdir"), own + "-pwned");

    @BeforeEach
    void plant() throws Exception {
        execute("CREATE TABLE public." + sentinel + " (v int)", "INSERT INTO public." + sentinel + " VALUES (1)",
                "CREATE ROLE " + target + " CONNECTION LIMIT 7");
        Files.deleteIfExists(pwned);
    }

    @AfterEach
    void removePlanted() throws Exception {
        execute("DROP TABLE IF EXISTS public." + sentinel, "DROP ROLE IF EXISTS " + target);
        Files.deleteIfExists(pwned);
    }

    private static void execute(String... statements) throws Exception {
        try (Connection c = TestServers.connect(); Statement s = c.createStatement()) {
            for (String sql : statements) {
                s.execute(sql);
            }
        }
    }

    private static String single(String query) throws Exception {
        try (Connection c = TestServers.connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(query)) {
            return rs.next() ? rs.getString(1) : null;
        }
    }

    private static Spec spec(String name, String text) throws Exception {
        return SpecReader.read(name, name + ".spec", text);
    }

    private static boolean superuser() throws Exception {
        return "on".equals(single("SHOW is_superuser"));
    }

    @Test
    void aHostileSpecRunWithASuperuserLoginChangesNothingOutsideItsScratchDatabase() throws Exception {
        Assumptions.assumeTrue(superuser(), "the test server's login is no superuser: nothing to confine");
        PgAddress a = TestServers.postgres().address();
        String conninfo = "host=" + a.host() + " port=" + a.port() + " dbname=" + a.database() + " user=" + a.user();
        // Each step is one way out of the scratch database; RaceLab's reading of the spec sees none
        // of the last five (SQL built while it runs), so only the sessions' rights stop them.
        Spec hostile = spec("confine-hostile", """
                session s1
                step dblink { CREATE EXTENSION dblink; }
                step dblink_drop { SELECT dblink_exec('%1$s', 'DROP TABLE public.%2$s'); }
                step fdw { CREATE EXTENSION postgres_fdw; }
                step fdw_server { CREATE SERVER other FOREIGN DATA WRAPPER postgres_fdw
                                  OPTIONS (host '%3$s', port '%4$d', dbname '%5$s'); }
                step fdw_map { CREATE USER MAPPING FOR CURRENT_USER SERVER other OPTIONS (user '%6$s'); }
                step fdw_table { CREATE FOREIGN TABLE theirs (v int) SERVER other OPTIONS (table_name '%2$s'); }
                step fdw_update { UPDATE theirs SET v = 666; }
                step load { LOAD 'auto_explain'; }
                step read_file { DO $$ BEGIN EXECUTE 'SELECT pg_read_file(''PG_VERSION'')'; END $$; }
                step list_dir { DO $$ BEGIN EXECUTE 'SELECT pg_ls_dir(''.'')'; END $$; }
                step alter_role { DO $$ BEGIN EXECUTE 'ALTER ROLE %7$s CONNECTION LIMIT 1'; END $$; }
                step program { DO $$ BEGIN EXECUTE 'COPY (SELECT 1) TO PROGRAM ''touch %8$s'''; END $$; }
                """.formatted(conninfo, sentinel, a.host(), a.port(), a.database(), a.user(), target, pwned));
        Transcript transcript = new Transcript();
        IsolationRun run = new IsolationRun(TestServers.postgres(), hostile, transcript, PATIENT);
        run.run(List.of());
        String text = transcript.text();

        assertTrue(text.contains("ERROR:  permission denied to create extension \"dblink\""), text);
        assertTrue(text.contains("ERROR:  permission denied to create extension \"postgres_fdw\""), text);
        assertTrue(text.contains("ERROR:  access to library \"auto_explain\" is not allowed"), text);
        assertTrue(text.contains("ERROR:  permission denied for function pg_read_file"), text);
        assertTrue(text.contains("ERROR:  permission denied for function pg_ls_dir"), text);
        // "permission denied" (15), "permission denied to alter role" (17)
        assertTrue(text.contains("CONNECTION LIMIT 1'; END $$;\nERROR:  permission denied"), text);
        assertTrue(text.contains("COPY to or from an external program"), text);

        assertEquals("1", single("SELECT string_agg(v::text, ',') FROM public." + sentinel),
                "the other database's table is there, unchanged");
        assertEquals("7", single("SELECT rolconnlimit FROM pg_roles WHERE rolname = '" + target + "'"),
                "the other role is as it was");
        assertFalse(Files.exists(pwned), "no program ran on the server's machine");
        assertEquals(List.of(), IsolationCleanupTest.rolesOfRun(run.scratchName()));
    }

    @Test
    void aSpecCannotMakeRaceLabDropOrCreateARoleOfAnotherName() throws Exception {
        // Read with a body's statements on their own, the teardown is DROP ROLE regress_x (the
        // spec's) and ", target"; the server would read one statement dropping both.
        Spec sly = spec("confine-sly", "setup { CREATE ROLE regress_x; }\n"
                + "teardown { DROP ROLE regress_x $$ $$, " + target + "; }\n"
                + "session s1\nstep s1a { SELECT 1; }\n");
        Transcript transcript = new Transcript();
        IsolationRun run = new IsolationRun(TestServers.postgres(), sly, transcript, PATIENT);
        IsolationFailure refused = assertThrows(IsolationFailure.class, () -> run.run(List.of()));
        assertTrue(refused.getMessage().contains("drop role regress_x, " + target + ": RaceLab carries out a role "
                + "statement only as plain words"), refused.getMessage());
        assertEquals("", transcript.text(), "nothing ran");
        assertEquals("7", single("SELECT rolconnlimit FROM pg_roles WHERE rolname = '" + target + "'"));
    }

    @Test
    void aSpecCannotKeepItsDatabaseOrItsLoginOnTheServer() throws Exception {
        // The spec's login owns its database: it may make it a template (which cannot be dropped)
        // and change its own password. Neither keeps anything behind once the run ends.
        Spec clinging = spec("confine-cling", """
                session s1
                step template { DO $$ BEGIN EXECUTE format('ALTER DATABASE %I IS_TEMPLATE true', current_database());
                                END $$; }
                step password { DO $$ BEGIN EXECUTE format('ALTER ROLE %I PASSWORD %L', current_user, 'known');
                                END $$; }
                """);
        Transcript transcript = new Transcript();
        IsolationRun run = new IsolationRun(TestServers.postgres(), clinging, transcript, PATIENT);
        run.run(List.of());
        assertFalse(transcript.text().contains("ERROR"), transcript.text());
        assertEquals(List.of(), run.kept());
        assertEquals("0", single("SELECT count(*) FROM pg_database WHERE datname = '" + run.scratchName() + "'"));
        assertEquals(List.of(), IsolationCleanupTest.rolesOfRun(run.scratchName()));
    }

    @Test
    void aSpecThatNeedsMoreThanItsRoleIsRefusedSayingWhatAndRunsAsTheLoginOnlyWhenAsked() throws Exception {
        Assumptions.assumeTrue(superuser(), "the test server's login is no superuser");
        Spec reads = spec("confine-reads", "session s1\nstep s1a { SELECT length(pg_read_file('PG_VERSION')) > 0 "
                + "AS read; }\n");
        Transcript refusedTranscript = new Transcript();
        IsolationRun confined = new IsolationRun(TestServers.postgres(), reads, refusedTranscript, PATIENT);
        IsolationFailure refused = assertThrows(IsolationFailure.class, () -> confined.run(List.of()));
        String user = TestServers.postgres().address().user();
        assertEquals("refused, nothing ran: spec confine-reads runs as a role of its own, which owns only its scratch "
                + "database, and needs more: it calls pg_read_file, which not everyone may call. To run it as " + user
                + ", with all of its rights, ask for that (--as-login on the command line, 'Run as my login' in the "
                + "window)", refused.getMessage());
        assertEquals("", refusedTranscript.text(), "nothing ran");

        Transcript transcript = new Transcript();
        new IsolationRun(TestServers.postgres(), reads, transcript, PATIENT, SpecSandbox.Access.AS_LOGIN)
                .run(List.of());
        assertTrue(transcript.text().contains("read\n----\nt   \n(1 row)"), transcript.text());
    }

    @Test
    void twoRunsOfASpecThatCreatesARoleRunAtOnceEachWithItsOwn() throws Exception {
        // Before, such specs ran one at a time across RaceLabs: both created and dropped the same role.
        String text = """
                setup { CREATE ROLE regress_together; CREATE TABLE t (a int);
                        ALTER TABLE t OWNER TO regress_together; }
                teardown { DROP TABLE t; DROP ROLE regress_together; }
                session s1
                step s1a { SET ROLE regress_together; }
                step s1b { SELECT pg_sleep(1); }
                step s1c { TRUNCATE t; }
                step s1d { RESET ROLE; }
                """;
        List<CompletableFuture<String>> runs = new ArrayList<>();
        List<IsolationRun> made = new ArrayList<>();
        // Each run, its role made, waits at its first step for the other to be there too: run one
        // after the other, the first would wait in vain.
        CountDownLatch bothIn = new CountDownLatch(2);
        AtomicBoolean together = new AtomicBoolean(true);
        for (int i = 0; i < 2; i++) {
            Transcript transcript = new Transcript();
            IsolationListener meet = new IsolationListener() {
                @Override
                public void stepLaunched(LaunchedStep step) {
                    if (step.name().equals("s1a")) {
                        bothIn.countDown();
                        try {
                            together.compareAndSet(true, bothIn.await(60, TimeUnit.SECONDS));
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            together.set(false);
                        }
                    }
                }
            };
            IsolationRun run = new IsolationRun(TestServers.postgres(), spec("confine-together", text),
                    IsolationListener.all(transcript, meet), PATIENT);
            made.add(run);
            runs.add(CompletableFuture.supplyAsync(() -> {
                try {
                    run.run(List.of());
                    return transcript.text();
                } catch (Exception e) {
                    return "failed: " + e.getMessage();
                }
            }));
        }
        for (CompletableFuture<String> run : runs) {
            String transcript = run.get(3, TimeUnit.MINUTES);
            assertTrue(transcript.contains("step s1c: TRUNCATE t;\nstep s1d: RESET ROLE;"), transcript);
            assertFalse(transcript.contains("ERROR"), transcript);
        }
        assertTrue(together.get(), "both runs had made their role and were at their first step at once");
        for (IsolationRun run : made) {
            assertEquals(List.of(), IsolationCleanupTest.rolesOfRun(run.scratchName()));
        }
    }

    @Test
    void aLoginThatMayCreateRolesAndDatabasesButIsNoSuperuserRunsASpecConfinedToo() throws Exception {
        String creator = own + "_creator";
        execute("CREATE ROLE " + creator + " LOGIN CREATEDB CREATEROLE PASSWORD 'creator-secret'");
        PgAddress base = TestServers.postgres().address();
        try (Postgres limited = Postgres.reach(base.withLogin(creator, "creator-secret"))) {
            Spec spec = spec("confine-creator", """
                    setup { CREATE ROLE regress_owned; CREATE TABLE t (a int); ALTER TABLE t OWNER TO regress_owned; }
                    teardown { DROP TABLE t; DROP ROLE regress_owned; }
                    session s1
                    step s1a { SET ROLE regress_owned; }
                    step s1b { TRUNCATE t; }
                    step s1c { RESET ROLE; }
                    """);
            Transcript transcript = new Transcript();
            IsolationRun run = new IsolationRun(limited, spec, transcript, PATIENT);
            run.run(List.of());
            assertFalse(transcript.text().contains("ERROR"), transcript.text());
            assertEquals(List.of(), run.kept());
            assertEquals(List.of(), IsolationCleanupTest.rolesOfRun(run.scratchName()));
            assertEquals("0", single("SELECT count(*) FROM pg_database WHERE datname = '" + run.scratchName() + "'"));
        } finally {
            execute("DROP ROLE IF EXISTS " + creator);
        }
    }

    @Test
    void theRolesOfAKilledRunAreDroppedByTheNextOnceTheirTimeHasPassed() throws Exception {
        // As a RaceLab killed mid-spec leaves them: its login and a spec's role, marked and past
        // their time, their scratch database gone. A running spec's (time not past) stays.
        String dead = SpecLogin.PREFIX + "00000000deadbeef";
        String alive = SpecLogin.PREFIX + "00000000a11ce000";
        // Past its time, but with a session in its database: a spec that runs long, not a leftover.
        String busy = SpecLogin.PREFIX + "00000000b0b0b0b0";
        String busyDatabase = ScratchDatabase.PREFIX + "00000000b0b0b0b0";
        execute("CREATE ROLE " + dead + " LOGIN", "CREATE ROLE " + dead + "_1_regress_x",
                "CREATE ROLE " + alive + " LOGIN",
                "COMMENT ON ROLE " + dead + " IS 'RaceLab isolation role; a leftover after 2000-01-01T00:00:00Z'",
                "COMMENT ON ROLE " + dead + "_1_regress_x IS 'RaceLab isolation role; a leftover after "
                        + "2000-01-01T00:00:00Z'",
                "COMMENT ON ROLE " + alive + " IS 'RaceLab isolation role; a leftover after 2999-01-01T00:00:00Z'",
                "CREATE ROLE " + busy + " LOGIN", "CREATE DATABASE " + busyDatabase + " OWNER " + busy,
                "COMMENT ON ROLE " + busy + " IS 'RaceLab isolation role; a leftover after 2000-01-01T00:00:00Z'");
        PgAddress a = TestServers.postgres().address();
        try (Connection inBusy = java.sql.DriverManager.getConnection(a.withDatabase(busyDatabase).jdbcUrl(),
                a.properties())) {
            new IsolationRun(TestServers.postgres(), spec("confine-next", "session s1\nstep s1a { SELECT 1; }\n"),
                    new Transcript(), PATIENT).run(List.of());
            assertEquals("0", single("SELECT count(*) FROM pg_roles WHERE rolname LIKE '" + dead + "%'"));
            assertEquals("1", single("SELECT count(*) FROM pg_roles WHERE rolname = '" + alive + "'"));
            assertEquals("1", single("SELECT count(*) FROM pg_roles WHERE rolname = '" + busy + "'"));
            assertEquals("1", single("SELECT count(*) FROM pg_database WHERE datname = '" + busyDatabase + "'"));
            assertTrue(inBusy.isValid(5), "the running spec's session was left alone");
        } finally {
            execute("DROP DATABASE IF EXISTS " + busyDatabase, "DROP ROLE IF EXISTS " + dead + "_1_regress_x",
                    "DROP ROLE IF EXISTS " + dead, "DROP ROLE IF EXISTS " + alive, "DROP ROLE IF EXISTS " + busy);
        }
    }

    @Test
    void aServerWhosePgHbaTurnsTheSpecsRoleAwaySaysSoAndNamesTheWayOut() throws Exception {
        withSpecRolesIn("host all /^racelab_spec_ all reject", "", "28000", "the server took the new pg_hba.conf", () -> {
            Spec spec = spec("confine-hba", "session s1\nstep s1a { SELECT 1; }\n");
            String made = "SELECT (SELECT count(*) FROM pg_roles WHERE rolname LIKE 'racelab\\_spec\\_%') || ' roles, ' "
                    + "|| (SELECT count(*) FROM pg_database WHERE datname LIKE 'racelab\\_isolation\\_%') || ' databases'";
            String before = single(made);
            IsolationRun run = new IsolationRun(TestServers.postgres(), spec, new Transcript(), PATIENT);
            BackendException refused = assertThrows(BackendException.class, () -> run.run(List.of()));
            assertTrue(refused.getMessage().contains("does not let the role RaceLab made for the spec's sessions ("
                    + SpecLogin.PREFIX), refused.getMessage());
            assertTrue(refused.getMessage().contains("pg_hba.conf") && refused.getMessage().contains("--as-login"),
                    refused.getMessage());
            assertEquals(before, single(made), "what it made is gone");
        });
    }

    @Test
    void aSpecsRoleLogsInByPasswordWhereThePgHbaAsksForOne() throws Exception {
        withSpecRolesIn("host all /^racelab_spec_ all scram-sha-256", "wrong", "28P01",
                "the server asks RaceLab's spec roles for a password", () -> {
            Spec spec = spec("confine-scram", "session s1\nstep s1a { SELECT current_user LIKE 'racelab_spec_%' "
                    + "AS confined; }\n");
            Transcript transcript = new Transcript();
            IsolationRun run = new IsolationRun(TestServers.postgres(), spec, transcript, PATIENT);
            run.run(List.of());
            assertTrue(transcript.text().contains("confined\n--------\nt       \n(1 row)"), transcript.text());
        });
    }

    /** What a test does while the embedded server's pg_hba.conf starts with {@code line}. */
    private interface WithHba {
        void run() throws Exception;
    }

    /**
     * Puts {@code line} first in the embedded server's pg_hba.conf, waits until a probe role named
     * as the spec roles are, logging in with {@code password} (its own is 'right'), is refused with
     * {@code sqlState}, runs {@code body}, and puts the file back. Only RaceLab's own embedded server
     * may have its pg_hba.conf changed for a moment.
     */
    private static void withSpecRolesIn(String line, String password, String sqlState, String taken, WithHba body)
            throws Exception {
        Assumptions.assumeFalse(TestServers.external(), "the server is not RaceLab's own");
        Path hba = Path.of(single("SHOW hba_file"));
        String original = Files.readString(hba);
        String probe = SpecLogin.PREFIX + "probe_" + ProcessHandle.current().pid();
        execute("CREATE ROLE " + probe + " LOGIN PASSWORD 'right'");
        try {
            Files.writeString(hba, line + "\n" + original);
            execute("SELECT pg_reload_conf()");
            PgAddress a = TestServers.postgres().address();
            assertTrue(Poll.eventually(Duration.ofSeconds(20), () -> {
                try (Connection c = java.sql.DriverManager.getConnection(a.jdbcUrl(), probe, password)) {
                    return false;
                } catch (java.sql.SQLException e) {
                    return sqlState.equals(e.getSQLState());
                }
            }), taken);
            body.run();
        } finally {
            Files.writeString(hba, original);
            execute("SELECT pg_reload_conf()", "DROP ROLE IF EXISTS " + probe);
        }
    }
}
