package dev.racelab.isolation;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A spec's roles under the run's names: what the server is sent instead of the spec's text, and
 * how a block is cut into the SQL a session sends and the role statements RaceLab carries out.
 */
@Tag("engine")
class RoleNamesTest {

    private static final String RUN = "racelab_spec_0123456789abcdef_";

    @Test
    void everyPlaceARoleIsNamedGetsTheRunsNameAndNothingElseChanges() {
        RoleNames names = RoleNames.of(Set.of("regress_x", "Mixed Case"), RUN);
        String a = "\"" + RUN + "2_regress_x\"";
        String b = "\"" + RUN + "1_Mixed Case\"";
        assertEquals("SET ROLE " + a + ";", names.rewrite("SET ROLE regress_x;"));
        assertEquals("SET ROLE " + a + ";", names.rewrite("SET ROLE REGRESS_X;"), "unquoted names fold");
        assertEquals("GRANT TRUNCATE ON t TO " + a + ", " + b + ";",
                names.rewrite("GRANT TRUNCATE ON t TO regress_x, \"Mixed Case\";"));
        assertEquals("SELECT has_table_privilege('" + RUN + "2_regress_x', 't', 'SELECT');",
                names.rewrite("SELECT has_table_privilege('regress_x', 't', 'SELECT');"), "a string that is the name");
        assertEquals("SELECT 'regress_x is a role', \"mixed case\"; -- regress_x",
                names.rewrite("SELECT 'regress_x is a role', \"mixed case\"; -- regress_x"),
                "other strings, another quoted name and comments stay");
        assertEquals("DO $$ BEGIN EXECUTE 'x'; PERFORM 1 FROM t WHERE owner = " + a + "; END $$;",
                names.rewrite("DO $$ BEGIN EXECUTE 'x'; PERFORM 1 FROM t WHERE owner = regress_x; END $$;"),
                "a dollar-quoted body is rewritten where it stands");
    }

    @Test
    void aRoleNamedLikeAReservedWordIsOnlyEverTheQuotedName() {
        RoleNames names = RoleNames.of(Set.of("select"), RUN);
        assertEquals("SELECT 1; SET ROLE \"" + RUN + "1_select\";", names.rewrite("SELECT 1; SET ROLE \"select\";"));
    }

    @Test
    void aBlockIsCutIntoSqlForTheSessionAndRoleStatementsForRaceLab() throws Exception {
        RoleNames names = RoleNames.of(Set.of("regress_owner"), RUN);
        String run = RUN + "1_regress_owner";
        List<RoleNames.Piece> pieces = names.pieces("""
                CREATE ROLE regress_owner NOINHERIT;
                CREATE TABLE t (a int);
                ALTER TABLE t OWNER TO regress_owner;
                DROP ROLE IF EXISTS regress_owner""");
        assertEquals(3, pieces.size(), pieces.toString());
        assertEquals(new RoleNames.OnBehalf(new RoleStatement(true, List.of(run), false, false),
                "CREATE ROLE regress_owner NOINHERIT;"), pieces.get(0));
        assertEquals(new RoleNames.Sql("\nCREATE TABLE t (a int);\nALTER TABLE t OWNER TO \"" + run + "\";\n"),
                pieces.get(1));
        assertEquals(new RoleNames.OnBehalf(new RoleStatement(false, List.of(run), true, true),
                "DROP ROLE IF EXISTS regress_owner"), pieces.get(2));
    }

    @Test
    void aRoleStatementWithQuotedTextInsideIsNeverCarriedOut() {
        RoleNames names = RoleNames.of(Set.of("regress_x"), RUN);
        assertThrows(RoleStatement.Unsupported.class, () -> names.pieces("DROP ROLE regress_x $$ $$, victim;"));
        assertThrows(RoleStatement.Unsupported.class, () -> names.pieces("CREATE ROLE $$ $$ free;"));
    }

    @Test
    void aSpecWithoutRolesGoesAsWritten() throws Exception {
        String block = "CREATE TABLE t (a int); -- a comment\n";
        assertEquals(block, RoleNames.NONE.rewrite(block));
        assertEquals(List.of(new RoleNames.Sql(block)), RoleNames.NONE.pieces(block));
    }

    @Test
    void runNamesFitPostgresqlsNamesAndStayApart() {
        String longName = "r".repeat(60);
        RoleNames names = RoleNames.of(Set.of(longName, longName + "2"), RUN);
        String first = names.of(longName);
        String second = names.of(longName + "2");
        assertTrue(first.getBytes(StandardCharsets.UTF_8).length <= 63, first);
        assertTrue(second.getBytes(StandardCharsets.UTF_8).length <= 63, second);
        assertTrue(first.startsWith(RUN + "1_") && second.startsWith(RUN + "2_"), first + " / " + second);
        assertEquals("someone_else", names.of("someone_else"), "a role the spec does not create keeps its name");
    }
}
