package dev.racelab.isolation.run;

import dev.racelab.backend.BackendException;
import dev.racelab.backend.PgAddress;
import dev.racelab.backend.Postgres;
import dev.racelab.isolation.Spec;
import dev.racelab.isolation.SpecReader;
import dev.racelab.support.Poll;
import dev.racelab.support.TestServers;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Whatever a spec run does, good or bad, nothing of it stays on the server: no scratch database,
 * no session. And a login that may not create databases is told so before anything runs.
 */
@Tag("lab")
// Each spec makes and drops a database: nothing else of the build (SilentServerTest counts on its
// timing beside the others) runs beside these.
@Isolated
class IsolationCleanupTest {

    /**
     * For the test whose step must be cancelled: a second's step timeout. Every other test runs
     * with isolationtester's own, so that no step of theirs is cancelled because the machine is busy.
     */
    private static final SpecRunner.Options QUICK = SpecRunner.Options.DEFAULTS.withStepTimeout(Duration.ofSeconds(1));
    private static final SpecRunner.Options PATIENT = SpecRunner.Options.DEFAULTS;

    private static final String TWO_SESSIONS = """
            setup { CREATE TABLE t (id int PRIMARY KEY, x int); INSERT INTO t VALUES (1, 0); }
            teardown { DROP TABLE t; }
            session s1
            setup { BEGIN; }
            step s1u { UPDATE t SET x = 1 WHERE id = 1; }
            step s1c { COMMIT; }
            teardown { ROLLBACK; }
            session s2
            setup { BEGIN; }
            step s2u { UPDATE t SET x = 2 WHERE id = 1; }
            step s2c { COMMIT; }
            teardown { ROLLBACK; }
            """;

    private static Spec spec(String name, String text) throws Exception {
        return SpecReader.read(name, name + ".spec", text);
    }

    /** Whether the database is on the server now. */
    private static boolean exists(String database) throws Exception {
        return named("SELECT count(*) FROM pg_database WHERE datname = ?", database);
    }

    /** Whether the role is on the server now. */
    private static boolean roleExists(String role) throws Exception {
        return named("SELECT count(*) FROM pg_roles WHERE rolname = ?", role);
    }

    /** Whether {@code count} (a count with one parameter) finds anything called {@code name}. */
    private static boolean named(String count, String name) throws Exception {
        try (Connection c = TestServers.connect(); PreparedStatement p = c.prepareStatement(count)) {
            p.setString(1, name);
            try (ResultSet rs = p.executeQuery()) {
                rs.next();
                return rs.getInt(1) > 0;
            }
        }
    }

    private static void execute(String sql) throws Exception {
        try (Connection c = TestServers.connect(); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    /** A role name of this JVM's own: another build on the same server has another. */
    private static String ownRole(String what) {
        return "racelab_test_" + what + "_" + ProcessHandle.current().pid();
    }

    /** The roles of the run whose scratch database is {@code scratch} still on the server: its login, the spec's roles. */
    static List<String> rolesOfRun(String scratch) throws Exception {
        String run = scratch.substring("racelab_isolation_".length());
        List<String> names = new ArrayList<>();
        try (Connection c = TestServers.connect();
             PreparedStatement p = c.prepareStatement("SELECT rolname FROM pg_roles WHERE rolname LIKE ?")) {
            p.setString(1, "racelab\\_spec\\_" + run + "%");
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    names.add(rs.getString(1));
                }
            }
        }
        return names;
    }

    /** RaceLab's scratch databases on the server now. */
    private static List<String> scratchDatabases() throws Exception {
        List<String> names = new ArrayList<>();
        try (Connection c = TestServers.connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT datname FROM pg_database WHERE datname LIKE 'racelab\\_isolation\\_%'")) {
            while (rs.next()) {
                names.add(rs.getString(1));
            }
        }
        return names;
    }

    /** Sessions of the spec called {@code test}, as isolationtester names them. */
    private static int sessionsOf(String test) throws Exception {
        try (Connection c = TestServers.connect();
             PreparedStatement p = c.prepareStatement(
                     "SELECT count(*) FROM pg_stat_activity WHERE application_name LIKE ?")) {
            p.setString(1, "isolation/" + test + "/%");
            try (ResultSet rs = p.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }

    @Test
    void aRunThatBlocksAndCompletesLeavesNothing() throws Exception {
        Transcript transcript = new Transcript();
        IsolationRun run = new IsolationRun(TestServers.postgres(), spec("cleanup-good", TWO_SESSIONS
                + "permutation s1u s2u s1c s2c"), transcript, PATIENT);
        run.run(List.of());
        assertTrue(transcript.text().contains("step s2u: UPDATE t SET x = 2 WHERE id = 1; <waiting ...>\n"
                + "step s1c: COMMIT;\nstep s2u: <... completed>\nstep s2c: COMMIT;\n"), transcript.text());
        assertTrue(run.scratchName().startsWith("racelab_isolation_"), run.scratchName());
        assertFalse(exists(run.scratchName()), "its scratch database was dropped");
        assertEquals(0, sessionsOf("cleanup-good"));
        assertEquals(List.of(), rolesOfRun(run.scratchName()), "the roles it made were dropped");
    }

    @Test
    void aFailingSetupStopsTheSpecAndLeavesNothing() throws Exception {
        Transcript transcript = new Transcript();
        IsolationRun run = new IsolationRun(TestServers.postgres(), spec("cleanup-setup", "setup { SELECT 1/0; }\n"
                + TWO_SESSIONS), transcript, PATIENT);
        IsolationFailure failure = assertThrows(IsolationFailure.class, () -> run.run(List.of()));
        assertEquals("the setup failed: division by zero", failure.getMessage());
        assertTrue(transcript.text().endsWith("\nsetup failed: ERROR:  division by zero\n"), transcript.text());
        assertTrue(run.scratchName().startsWith("racelab_isolation_"), run.scratchName());
        assertFalse(exists(run.scratchName()), "its scratch database was dropped");
        assertEquals(0, sessionsOf("cleanup-setup"));
        assertEquals(List.of(), rolesOfRun(run.scratchName()), "the roles it made were dropped");
    }

    @Test
    void aStepLeftWaitingIsCancelledAfterTheStepTimeoutAndLeavesNothing() throws Exception {
        Transcript transcript = new Transcript();
        IsolationRun run = new IsolationRun(TestServers.postgres(), spec("cleanup-cancel", TWO_SESSIONS
                + "permutation s1u s2u"), transcript, QUICK);
        run.run(List.of());
        assertTrue(transcript.text().contains("step s2u: UPDATE t SET x = 2 WHERE id = 1; <waiting ...>\n"
                + "isolationtester: canceling step s2u after 1 seconds\n"
                + "step s2u: <... completed>\nERROR:  canceling statement due to user request\n"), transcript.text());
        assertTrue(run.scratchName().startsWith("racelab_isolation_"), run.scratchName());
        assertFalse(exists(run.scratchName()), "its scratch database was dropped");
        assertEquals(0, sessionsOf("cleanup-cancel"));
        assertEquals(List.of(), rolesOfRun(run.scratchName()), "the roles it made were dropped");
    }

    @Test
    void aRunStoppedFromAnotherThreadInTheMiddleOfAStepLeavesNothing() throws Exception {
        Spec sleeping = spec("cleanup-stop", "session s1\nstep sleep { SELECT pg_sleep(60); }\n");
        IsolationRun run = new IsolationRun(TestServers.postgres(), sleeping, new Transcript(),
                SpecRunner.Options.DEFAULTS);
        CompletableFuture<Throwable> ended = CompletableFuture.supplyAsync(() -> {
            try {
                run.run(List.of());
                return null;
            } catch (Exception e) {
                return e;
            }
        });
        assertTrue(Poll.eventually(Duration.ofSeconds(20), () -> sessionsOf("cleanup-stop") == 2), "the spec's sessions "
                + "connected");
        run.stop();
        Throwable failure = ended.get(30, TimeUnit.SECONDS);
        assertTrue(failure instanceof IsolationFailure && failure.getMessage().equals("stopped"), String.valueOf(failure));
        assertTrue(run.scratchName().startsWith("racelab_isolation_"), run.scratchName());
        assertFalse(exists(run.scratchName()), "its scratch database was dropped");
        assertEquals(0, sessionsOf("cleanup-stop"));
        assertEquals(List.of(), rolesOfRun(run.scratchName()), "the roles it made were dropped");
    }

    @Test
    void theScratchDatabaseOfARaceLabThatWasKilledGoesWithTheNextOne() throws Exception {
        Postgres server = TestServers.postgres();
        ScratchDatabase orphan = ScratchDatabase.create(server);
        try (Connection c = TestServers.connect(); Statement s = c.createStatement()) {
            // As a killed RaceLab leaves it: marked, its time past, nobody connected.
            s.execute("COMMENT ON DATABASE " + orphan.name()
                    + " IS 'RaceLab isolation scratch database; a leftover after 2000-01-01T00:00:00Z'");
        }
        ScratchDatabase next = ScratchDatabase.create(server);
        try {
            assertFalse(scratchDatabases().contains(orphan.name()), "the leftover was dropped");
            assertTrue(scratchDatabases().contains(next.name()));
        } finally {
            next.drop();
        }
        assertFalse(scratchDatabases().contains(next.name()));
    }

    @Test
    void aLoginThatMayNotCreateRolesOrDatabasesIsToldSoAndNothingRuns() throws Exception {
        // The test server's login acting as pg_monitor, a role of PostgreSQL's own that may not
        // create databases: nothing is created to try this.
        PgAddress base = TestServers.postgres().address();
        PgAddress monitor = PgAddress.parse(base.secretUrl() + "?options=-c%20role%3Dpg_monitor");
        try (Postgres limited = Postgres.reach(monitor)) {
            Spec spec = spec("cleanup-monitor", TWO_SESSIONS);
            IsolationRun run = new IsolationRun(limited, spec, new Transcript(), PATIENT);
            BackendException refused = assertThrows(BackendException.class, () -> run.run(List.of()));
            assertTrue(refused.getMessage().contains("does not let user 'pg_monitor' create roles or databases, and "
                    + "an isolation spec runs in a scratch database RaceLab creates, as a role RaceLab creates for it "
                    + "that owns nothing else: grant it CREATEROLE and CREATEDB, use a login that has it, or run the "
                    + "spec as pg_monitor itself"), refused.getMessage());
            assertEquals(null, run.scratchName(), "no scratch database was made");
            // As the login itself, it still needs a database of its own.
            IsolationRun asLogin = new IsolationRun(limited, spec, new Transcript(), PATIENT,
                    SpecSandbox.Access.AS_LOGIN);
            refused = assertThrows(BackendException.class, () -> asLogin.run(List.of()));
            assertTrue(refused.getMessage().contains("does not let user 'pg_monitor' create databases, and an "
                    + "isolation spec runs only in a scratch database RaceLab creates and drops"), refused.getMessage());
        }
    }

    @Test
    void aRoleTheSpecCreatedAndItsFailingTeardownLeftIsDroppedToo() throws Exception {
        // Roles belong to the whole server: the scratch database does not take them with it. A
        // quoted name keeps its case, as the server keeps it.
        String role = "Racelab_Test_" + ProcessHandle.current().pid();
        Spec leaky = spec("cleanup-role", "setup { CREATE USER \"" + role + "\"; }\n"
                + "teardown { SELECT 1/0; DROP ROLE \"" + role + "\"; }\n"
                + "session s1\nstep s1a { SELECT 1; }\n");
        Transcript transcript = new Transcript();
        IsolationRun run = new IsolationRun(TestServers.postgres(), leaky, transcript, PATIENT);
        run.run(List.of());
        assertTrue(transcript.text().endsWith("teardown failed: ERROR:  division by zero\n"), transcript.text());
        assertEquals(List.of(), rolesOfRun(run.scratchName()), "the role made for the spec is gone, as is its login");
        assertFalse(roleExists(role), "no role of the spec's own name was ever made");
        assertEquals(List.of(), run.kept());
    }

    @Test
    void aRoleSomeoneElseCreatesWhileASpecRunsIsLeftAloneThoughTheSpecMentionsIt() throws Exception {
        // The old cleanup dropped every role newer than the scratch database whose name the spec's
        // SQL contained. Here another user creates one while the spec runs (as its first
        // permutation starts), named in a string of the spec's.
        String bystander = ownRole("bystander");
        Spec mentions = spec("cleanup-bystander", "session s1\nstep s1a { SELECT '" + bystander + "'; }\n");
        IsolationListener meanwhile = new IsolationListener() {
            @Override
            public void permutationStarted(String names) {
                try {
                    execute("CREATE ROLE " + bystander);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }
        };
        try {
            IsolationRun.run(TestServers.postgres(), mentions, List.of(), meanwhile, PATIENT);
            assertTrue(roleExists(bystander), "the other user's role is still there");
        } finally {
            execute("DROP ROLE IF EXISTS " + bystander);
        }
    }

    @Test
    void aRoleOfTheSpecsNameThatSomeoneCreatesWhileItRunsIsNeitherUsedNorDropped() throws Exception {
        // The spec creates the role and drops it in its teardown; as the permutation ends another
        // client creates a role of that name. The spec's role had a name of the run's own: the
        // other client's is not touched, and nothing is said of it.
        String role = ownRole("successor");
        Spec spec = spec("cleanup-successor", "setup { CREATE ROLE " + role + "; }\n"
                + "teardown { DROP ROLE " + role + "; }\n"
                + "session s1\nstep s1a { SELECT 1; }\n");
        IsolationListener successor = new IsolationListener() {
            @Override
            public void permutationFinished(String names) {
                try {
                    execute("CREATE ROLE " + role + " CONNECTION LIMIT 7");
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }
        };
        try {
            IsolationRun run = new IsolationRun(TestServers.postgres(), spec, successor, PATIENT);
            run.run(List.of());
            assertTrue(roleExists(role), "the other client's role is still there");
            assertEquals(List.of(), run.kept());
            assertEquals(List.of(), rolesOfRun(run.scratchName()));
        } finally {
            execute("DROP ROLE IF EXISTS " + role);
        }
    }

    @Test
    void aSpecWhoseRoleHasTheNameOfSomeonesRoleRunsWithARoleOfItsOwnAndLeavesTheirsAsItWas() throws Exception {
        // Someone's role, and a spec that creates a role of that name, gives it a table, becomes it
        // and drops it in its teardown: run as written, it would have dropped the other's role.
        String theirs = ownRole("theirs");
        execute("CREATE ROLE " + theirs + " CONNECTION LIMIT 7");
        try {
            Spec spec = spec("cleanup-theirs", "setup { CREATE ROLE " + theirs + "; CREATE TABLE t (a int); "
                    + "ALTER TABLE t OWNER TO " + theirs + "; }\n"
                    + "teardown { DROP TABLE t; DROP ROLE " + theirs + "; }\n"
                    + "session s1\nstep s1a { SET ROLE " + theirs + "; }\nstep s1b { INSERT INTO t VALUES (1); }\n"
                    + "step s1c { SELECT count(*) AS rows FROM t; }\nstep s1d { RESET ROLE; }\n");
            Transcript transcript = new Transcript();
            IsolationRun run = new IsolationRun(TestServers.postgres(), spec, transcript, PATIENT);
            run.run(List.of());
            assertFalse(transcript.text().contains("ERROR"), transcript.text());
            assertTrue(transcript.text().contains("rows\n----\n   1\n(1 row)"), transcript.text());
            assertTrue(roleExists(theirs), "their role is still there");
            assertTrue(named("SELECT count(*) FROM pg_roles WHERE rolname = ? AND rolconnlimit = 7", theirs),
                    "and as it was");
            assertEquals(List.of(), run.kept());
            assertEquals(List.of(), rolesOfRun(run.scratchName()));
        } finally {
            execute("DROP ROLE IF EXISTS " + theirs);
        }
    }

    @Test
    void aSpecThatDropsARoleItDoesNotCreateIsRefusedBeforeAnythingRuns() throws Exception {
        String theirs = ownRole("dropped");
        execute("CREATE ROLE " + theirs);
        try {
            Spec spec = spec("cleanup-drops", "session s1\nstep s1a { SELECT 1; }\nstep s1b { DROP ROLE " + theirs
                    + "; }\n");
            Transcript transcript = new Transcript();
            IsolationRun run = new IsolationRun(TestServers.postgres(), spec, transcript, PATIENT);
            IsolationFailure refused = assertThrows(IsolationFailure.class, () -> run.run(List.of()));
            assertEquals("refused, nothing ran: spec cleanup-drops reaches beyond the scratch database it would run "
                    + "in: step s1b (line 3): drop role " + theirs + ": role " + theirs + " is not one the spec "
                    + "creates", refused.getMessage());
            assertEquals("", transcript.text(), "nothing ran");
            assertTrue(roleExists(theirs), "their role is still there");
        } finally {
            execute("DROP ROLE IF EXISTS " + theirs);
        }
    }
}
