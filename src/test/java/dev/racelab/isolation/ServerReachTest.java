package dev.racelab.isolation;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What RaceLab reads from a spec's SQL before running it: the roles it creates, named as the
 * server names them, and the statements it refuses because they reach beyond the scratch database.
 */
class ServerReachTest {

    private static ServerReach reach(String text) throws Exception {
        return ServerReach.of(SpecReader.read("reach", "reach.spec", text));
    }

    @Test
    void theRolesASpecCreatesAreNamedAsPostgresqlFoldsThem() throws Exception {
        ServerReach reach = reach("""
                setup { CREATE ROLE Alice; CREATE USER "Bob ""B"" x"; create group carol_1; }
                setup { -- CREATE ROLE in_a_comment
                        SELECT 'CREATE ROLE in_a_string'; /* CREATE ROLE in /* nested */ comment */
                        CREATE USER MAPPING FOR CURRENT_USER SERVER s; }
                teardown { DROP ROLE alice, "Bob ""B"" x", CAROL_1; }
                session s1
                step s1a { DO $$ BEGIN CREATE ROLE dave; DROP ROLE dave; END $$; }
                """);
        assertEquals(Set.of("alice", "Bob \"B\" x", "carol_1", "dave"), reach.createdRoles());
        assertEquals(List.of(), reach.refusals());
    }

    @Test
    void statementsThatReachTheWholeServerAreRefusedNamingStatementAndLine() throws Exception {
        ServerReach reach = reach("""
                setup { CREATE ROLE mine; }
                teardown { DROP ROLE mine; DROP ROLE IF EXISTS alice; }
                session s1
                step s1a { ALTER SYSTEM SET work_mem = '1MB'; }
                step s1b { SELECT 1;
                           DROP DATABASE postgres; }
                step s1c { GRANT TEMP ON DATABASE isolation_regression TO mine; }
                step s1d { ALTER ROLE postgres NOSUPERUSER; ALTER ROLE mine NOLOGIN; }
                step s1e { REASSIGN OWNED BY alice TO mine; DROP OWNED BY mine; }
                step s1f { GRANT pg_read_server_files TO alice; GRANT pg_monitor TO mine; }
                step s1g { CREATE TABLESPACE t LOCATION '/tmp'; SELECT pg_catalog.pg_reload_conf(); }
                step s1h { SELECT pg_terminate_backend(pg_backend_pid()); GRANT SELECT ON t TO alice; }
                """);
        List<String> refused = reach.refusals().stream().map(ServerReach.Refusal::message).toList();
        assertEquals(List.of(
                "teardown (its line 1): drop role if exists alice: role alice is not one the spec creates",
                "step s1a (line 4): alter system set work_mem = '1MB': changes the configuration of the whole server",
                "step s1b (line 6): drop database postgres: a database belongs to the whole server, not to the "
                        + "scratch database the spec runs in",
                "step s1c (line 7): grant temp on database isolation_regression to mine: database "
                        + "isolation_regression is not the spec's: it runs in a scratch database whose name it "
                        + "cannot know",
                "step s1d (line 8): alter role postgres nosuperuser: role postgres is not one the spec creates",
                "step s1e (line 9): reassign owned by alice to mine: role alice is not one the spec creates",
                "step s1f (line 10): grant pg_read_server_files to alice: changes the membership of role alice, "
                        + "which is not one the spec creates",
                "step s1g (line 11): create tablespace t location '/tmp': a tablespace belongs to the whole server, "
                        + "not to the scratch database the spec runs in",
                "step s1g (line 11): select pg_catalog.pg_reload_conf(): pg_reload_conf acts on the whole server"),
                refused);
        assertTrue(reach.createdRoles().equals(Set.of("mine")));
    }
}
