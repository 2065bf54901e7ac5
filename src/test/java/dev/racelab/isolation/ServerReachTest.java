package dev.racelab.isolation;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What RaceLab reads from a spec's SQL before running it: the roles it creates, named as the
 * server names them, and the statements it refuses because they reach beyond the scratch database.
 */
@Tag("engine")
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
        // RaceLab carries a spec's role statements out itself, and only as statements of its blocks.
        String inBody = "RaceLab creates and drops a spec's roles itself, for the role statements of its setup "
                + "and teardown blocks, not inside a function's body";
        assertEquals(List.of("step s1a (line 7): create role dave: " + inBody,
                "step s1a (line 7): drop role dave: " + inBody),
                reach.refusals().stream().map(ServerReach.Refusal::message).toList());
    }

    @Test
    void roleStatementsAreCarriedOutOnlyInBlocksAndOnlyForPlainRoles() throws Exception {
        ServerReach reach = reach("""
                setup { CREATE ROLE plain NOLOGIN NOINHERIT CONNECTION LIMIT 3; CREATE USER logs_in;
                        CREATE ROLE boss SUPERUSER; CREATE ROLE maker WITH CREATEROLE;
                        CREATE ROLE secret PASSWORD 'x'; CREATE ROLE member IN ROLE plain; }
                teardown { ALTER ROLE plain CONNECTION LIMIT 1; DROP ROLE plain, logs_in; }
                session s1
                setup { SET ROLE plain; }
                step s1a { CREATE ROLE late; }
                step s1b { GRANT SELECT ON t TO plain; SET ROLE 'plain'; }
                """);
        List<String> refused = reach.refusals().stream().map(ServerReach.Refusal::message).toList();
        String plainOnly = "RaceLab creates a spec's roles as plain roles that never log in, and ";
        assertEquals(List.of(
                "setup (its line 2): create role boss superuser: " + plainOnly + "will not give one superuser rights",
                "setup (its line 2): create role maker with createrole: " + plainOnly + "will not give one the "
                        + "right to create roles",
                "setup (its line 3): create role secret password 'x': " + plainOnly + "will not give one a password",
                "setup (its line 3): create role member in role plain: " + plainOnly + "does not carry out the "
                        + "memberships CREATE ROLE … IN asks for",
                "teardown (its line 1): alter role plain connection limit 1: RaceLab carries out a spec's CREATE "
                        + "ROLE and DROP ROLE itself, not ALTER ROLE",
                "step s1a (line 7): create role late: RaceLab creates and drops a spec's roles itself, for the role "
                        + "statements of its setup and teardown blocks, not in a step"),
                refused);
    }

    @Test
    void aRoleStatementWithQuotedTextInsideIsRefusedAsTheServerWouldReadIt() throws Exception {
        // Read with the body's statements on their own, this is DROP ROLE regress_x (the spec's)
        // and ", victim"; the server reads one DROP ROLE of both (a reviewer's find).
        ServerReach reach = reach("""
                setup { CREATE ROLE regress_x; CREATE ROLE $$ $$ free; CREATE ROLE pg_mine; }
                teardown { DROP ROLE regress_x $$ $$, victim; }
                session s1
                step s1a { SELECT 1; }
                """);
        List<String> refused = reach.refusals().stream().map(ServerReach.Refusal::message).toList();
        String withBody = "RaceLab carries out a role statement only as plain words, with no dollar-quoted text or "
                + "body inside it";
        assertEquals(List.of("setup (its line 1): create role free: " + withBody,
                "teardown (its line 1): drop role regress_x, victim: " + withBody,
                "setup (its line 1): create role pg_mine: PostgreSQL keeps the role name pg_mine for itself"),
                refused);
    }

    @Test
    void theSettingsASpecSetsAndTheFunctionsItCallsAreFound() throws Exception {
        ServerReach reach = reach("""
                setup { CREATE TABLE t (a int); UPDATE t SET a = 1;
                        CREATE FUNCTION f() RETURNS int LANGUAGE sql SET work_mem = '1MB' AS $$ SELECT 1 $$; }
                session s1
                setup { SET SESSION deadlock_timeout = '10ms'; SET LOCAL "Track_Counts" TO off; }
                step s1a { RESET lock_timeout; SET ROLE x; SET TRANSACTION ISOLATION LEVEL SERIALIZABLE; }
                step s1b { SELECT set_config('Log_Lock_Waits', 'on', false), pg_catalog.pg_stat_reset(); }
                step s1c { UPDATE pg_class SET reltuples = 1, relpages = 2 WHERE oid = 't'::regclass; }
                step s1d { MERGE INTO pg_catalog.pg_class USING t ON false WHEN MATCHED THEN UPDATE SET relacl = NULL; }
                """);
        assertEquals(Set.of("pg_class.reltuples", "pg_class.relpages", "pg_class.relacl"), reach.catalogWrites());
        assertEquals(Set.of("deadlock_timeout", "track_counts", "lock_timeout", "log_lock_waits", "work_mem"),
                reach.settings());
        // Every name written as a call: functions, and a table's name before its columns.
        assertEquals(Set.of("f", "pg_stat_reset", "set_config", "t"), reach.functions());
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
                "step s1d (line 8): alter role mine nologin: RaceLab creates and drops a spec's roles itself, for "
                        + "the role statements of its setup and teardown blocks, not in a step",
                "step s1e (line 9): reassign owned by alice to mine: role alice is not one the spec creates",
                "step s1f (line 10): grant pg_read_server_files to alice: changes the membership of role alice, "
                        + "which is not one the spec creates",
                "step s1g (line 11): create tablespace t location '/tmp': a tablespace belongs to the whole server, "
                        + "not to the scratch database the spec runs in",
                "step s1g (line 11): select pg_catalog.pg_reload_conf(): pg_reload_conf acts on the whole server"),
                refused);
        assertTrue(reach.createdRoles().equals(Set.of("mine")));
    }

    @Test
    void functionAndDoBodiesAreReadAsSqlWhetherDollarQuotedOrWrittenAsStrings() throws Exception {
        ServerReach reach = reach("""
                setup { CREATE FUNCTION f() RETURNS void LANGUAGE sql AS $$ DROP ROLE victim $$; }
                session s1
                step s1a { DO 'BEGIN ALTER ROLE postgres NOSUPERUSER; END'; }
                step s1b { DO LANGUAGE plpgsql E'BEGIN ALTER ROLE \\x61lice SUPERUSER; END'; }
                step s1c { CREATE OR REPLACE PROCEDURE p() LANGUAGE sql AS 'CREATE ROLE "Eve"; SELECT ''x''; DROP ROLE "Eve"'; }
                step s1d { SELECT 'DROP ROLE in_a_string', $q$not$q$; DO 'BEGIN CREATE ROLE frank; END'; }
                """);
        List<String> refused = reach.refusals().stream().map(ServerReach.Refusal::message).toList();
        assertEquals(List.of(
                "setup (its line 1): drop role victim: role victim is not one the spec creates",
                "step s1a (line 3): alter role postgres nosuperuser: role postgres is not one the spec creates",
                "step s1b (line 4): alter role alice superuser: role alice is not one the spec creates",
                "step s1c (line 5): create role \"Eve\": names role Eve in a function's body written as a string, "
                        + "where RaceLab cannot give the role its run's name: write the body dollar-quoted ($$ … $$)",
                "step s1c (line 5): drop role \"Eve\": names role Eve in a function's body written as a string, "
                        + "where RaceLab cannot give the role its run's name: write the body dollar-quoted ($$ … $$)",
                "step s1d (line 6): create role frank: names role frank in a function's body written as a string, "
                        + "where RaceLab cannot give the role its run's name: write the body dollar-quoted ($$ … $$)"),
                refused);
        assertEquals(Set.of("Eve", "frank"), reach.createdRoles());
    }

    @Test
    void serverWideFunctionsCopyTargetsUnicodeEscapesAndLexerSettingsAreRefused() throws Exception {
        ServerReach reach = reach("""
                session s1
                step s1a { SELECT "pg_reload_conf"(); }
                step s1b { SELECT pg_catalog.pg_create_physical_replication_slot('s'); }
                step s1c { SELECT lo_import('/etc/passwd'); }
                step s1d { COPY (SELECT 1 WHERE 'a' SIMILAR TO 'b') TO PROGRAM 'cmd'; }
                step s1e { COPY t TO $$/tmp/x$$; }
                step s1f { COPY t (a, b) FROM stdin; COPY (SELECT 1) TO STDOUT; }
                step s1g { SELECT U&"d!0061ta" UESCAPE '!'; }
                step s1h { SET standard_conforming_strings = off; }
                step s1i { SELECT set_config('backslash_quote', 'on', false); }
                step s1j { SELECT pg_stat_reset(); SELECT pg_switch_wal(); }
                step s1k { CREATE ROLE élan; DROP ROLE élan; DROP ROLE élan_2; }
                """);
        List<String> refused = reach.refusals().stream().map(ServerReach.Refusal::message).toList();
        assertEquals(List.of(
                "step s1a (line 2): select \"pg_reload_conf\"(): pg_reload_conf acts on the whole server",
                "step s1b (line 3): select pg_catalog.pg_create_physical_replication_slot('s'): "
                        + "pg_create_physical_replication_slot acts on the whole server",
                "step s1c (line 4): select lo_import('/etc/passwd'): lo_import acts on the whole server",
                "step s1d (line 5): copy(select 1 where 'a' similar to 'b') to program 'cmd': runs a program on "
                        + "the server's machine",
                "step s1e (line 6): copy t to: reads or writes a file on the server's machine (only STDIN and STDOUT "
                        + "are allowed)",
                "step s1g (line 8): select U&\"d!0061ta\" uescape '!': uses a Unicode-escaped name or string (U&\"…\" or "
                        + "U&'…'), which RaceLab does not read: it could hide any statement",
                "step s1h (line 9): set standard_conforming_strings = off: changes standard_conforming_strings, "
                        + "which decides how RaceLab must read the spec's strings",
                "step s1i (line 10): select set_config('backslash_quote', 'on', false): changes backslash_quote, "
                        + "which decides how RaceLab must read the spec's strings",
                "step s1j (line 11): select pg_switch_wal(): pg_switch_wal acts on the whole server",
                "step s1k (line 12): create role élan: RaceLab creates and drops a spec's roles itself, for the role "
                        + "statements of its setup and teardown blocks, not in a step",
                "step s1k (line 12): drop role élan: RaceLab creates and drops a spec's roles itself, for the role "
                        + "statements of its setup and teardown blocks, not in a step",
                "step s1k (line 12): drop role élan_2: role élan_2 is not one the spec creates"),
                refused);
    }
}
