package dev.racelab.isolation;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The whole grammar, the permutations a spec runs, and one message with a place for each mistake. */
@Tag("engine")
class SpecReaderTest {

    private static Spec read(String text) throws SpecException {
        return SpecReader.read("t", "t.spec", text);
    }

    private static SpecException refused(String text) {
        return assertThrows(SpecException.class, () -> read(text));
    }

    @Test
    void readsSetupsTeardownSessionsStepsAndMarkers() throws SpecException {
        Spec spec = read("""
                # a comment
                setup { CREATE TABLE t (x int); }
                setup
                {
                  INSERT INTO t VALUES (1);
                }
                teardown { DROP TABLE t; }
                session "first one"
                setup { BEGIN; }
                step s1a { SELECT * FROM t; }   # trailing comment
                step "step" { UPDATE t SET x = 2; }
                teardown { COMMIT; }
                session s2
                step s2_a$1 { SELECT 1; }
                permutation s1a "step"(*) s2_a$1("step", s1a notices 3)
                permutation s2_a$1
                """);
        assertEquals(List.of("CREATE TABLE t (x int);", "\n  INSERT INTO t VALUES (1);\n"), spec.setups());
        assertEquals("DROP TABLE t;", spec.teardown());
        assertEquals(2, spec.sessions().size());
        Session first = spec.sessions().get(0);
        assertEquals("first one", first.name());
        assertEquals("BEGIN;", first.setup());
        assertEquals("COMMIT;", first.teardown());
        assertEquals(List.of("s1a", "step"), first.steps().stream().map(Step::name).toList());
        assertEquals(1, spec.sessions().get(1).steps().get(0).session());
        assertNull(spec.sessions().get(1).setup());
        assertEquals(10, first.steps().get(0).line());

        Permutation p = spec.declared().get(0);
        assertEquals("s1a step s2_a$1", p.names());
        assertInstanceOf(Blocker.Once.class, p.steps().get(1).blockers().get(0));
        Blocker.AfterStep after = (Blocker.AfterStep) p.steps().get(2).blockers().get(0);
        assertEquals("step", after.step().name());
        Blocker.AfterNotices notices = (Blocker.AfterNotices) p.steps().get(2).blockers().get(1);
        assertEquals("s1a", notices.step().name());
        assertEquals(3, notices.count());
        assertEquals("s1a step(*) s2_a$1(step, s1a notices 3)", p.toString());
        assertEquals(List.of(), spec.unusedSteps());
    }

    @Test
    void keepsNewlinesInsideTheBracesAndTrimsOnlyBlanks() throws SpecException {
        Spec spec = read("session s\nstep a {\n    SELECT 1;\n}\nstep b {\t SELECT 2; \t}\n");
        assertEquals("\n    SELECT 1;\n", spec.steps().get(0).sql());
        assertEquals("SELECT 2;", spec.steps().get(1).sql());
    }

    @Test
    void quotedNamesKeepCaseAndDoubleQuotes() throws SpecException {
        Spec spec = read("session s\nstep \"A\"\"b\" { SELECT 1; }\nstep a { SELECT 2; }\npermutation \"A\"\"b\" a");
        assertEquals("A\"b", spec.steps().get(0).name());
        assertEquals("A\"b a", spec.declared().get(0).names());
    }

    @Test
    void withNoPermutationLineEveryInterleavingRunsInIsolationtestersOrder() throws SpecException {
        Spec spec = read("""
                session s1
                step a1 { SELECT 1; }
                step a2 { SELECT 2; }
                session s2
                step b1 { SELECT 3; }
                step b2 { SELECT 4; }
                """);
        List<String> all = new ArrayList<>();
        spec.permutations().forEach(p -> all.add(p.names()));
        assertEquals(List.of("a1 a2 b1 b2", "a1 b1 a2 b2", "a1 b1 b2 a2", "b1 a1 a2 b2", "b1 a1 b2 a2",
                "b1 b2 a1 a2"), all);
        assertEquals(6, spec.permutationCount().intValue());
    }

    @Test
    void threeSessionsInterleaveAsTheMultinomialSays() throws SpecException {
        Spec spec = read("""
                session s1
                step a1 { SELECT 1; }
                step a2 { SELECT 1; }
                session s2
                step b1 { SELECT 1; }
                step b2 { SELECT 1; }
                session s3
                step c1 { SELECT 1; }
                step c2 { SELECT 1; }
                """);
        List<String> all = new ArrayList<>();
        spec.permutations().forEach(p -> all.add(p.names()));
        assertEquals(90, all.size());
        assertEquals(90, spec.permutationCount().intValue());
        assertEquals(90, all.stream().distinct().count());
        assertEquals("c1 c2 b1 b2 a1 a2", all.get(89));
    }

    @Test
    void unusedStepsAreListedSortedByName() throws SpecException {
        Spec spec = read("session s\nstep b { }\nstep a { }\nstep c { }\npermutation c");
        assertEquals(List.of("a", "b"), spec.unusedSteps());
        assertEquals("", spec.steps().get(0).sql());
    }

    @Test
    void anUnknownStepInAPermutationIsNamedWithItsPlace() {
        SpecException e = refused("session s1\nstep a { SELECT 1; }\npermutation a  zz");
        assertEquals(3, e.line());
        assertEquals(16, e.column());
        assertEquals("t.spec:3:16: the permutation names step zz, which no session defines", e.getMessage());
    }

    @Test
    void aMissingClosingBraceIsNamedWhereTheBlockOpens() {
        SpecException e = refused("session s1\nstep a { SELECT 1;\nstep b { SELECT 2;\n");
        assertEquals(2, e.line());
        assertEquals(8, e.column());
        assertEquals("the SQL block opened here has no closing '}'", e.problem());
    }

    @Test
    void aMissingOpeningBraceIsNamed() {
        SpecException e = refused("session s1\nstep a SELECT 1; }\n");
        assertEquals(2, e.line());
        assertEquals(8, e.column());
        assertEquals("expected '{' to begin the SQL of step a, found 'SELECT'", e.problem());
    }

    @Test
    void aDuplicateStepNameIsNamedAtItsSecondDefinition() {
        SpecException e = refused("session s1\nstep a { }\nsession s2\n  step a { }\n");
        assertEquals(4, e.line());
        assertEquals(8, e.column());
        assertEquals("step a is defined twice (first on line 2): step names are unique across the spec", e.problem());
    }

    @Test
    void anEmptyFileOrOneOfCommentsIsRefused() {
        SpecException empty = refused("");
        assertEquals("t.spec:1:1: the spec is empty: it needs at least one session "
                + "(session NAME, then step NAME { SQL })", empty.getMessage());
        SpecException comments = refused("# nothing\n\n");
        assertEquals(3, comments.line());
    }

    @Test
    void aSessionWithoutStepsIsRefused() {
        SpecException e = refused("session s1\nsession s2\nstep a { }");
        assertEquals(2, e.line());
        assertEquals("session s1 has no step: expected 'step NAME { SQL }', found 'session'", e.problem());
    }

    @Test
    void aKeywordAsANameMustBeQuoted() {
        SpecException e = refused("session s1\nstep step { }");
        assertEquals("expected the step's name after 'step', found 'step' (a keyword: quote it to use it as a name)",
                e.problem());
    }

    @Test
    void markersMustNameAnotherSessionsStepOfTheSamePermutation() {
        String sessions = "session s1\nstep a { }\nstep b { }\nsession s2\nstep c { }\n";
        SpecException own = refused(sessions + "permutation a b(a)");
        assertEquals(6, own.line());
        assertEquals(17, own.column());
        assertEquals("step b cannot wait for a: both belong to session s1", own.problem());
        SpecException absent = refused(sessions + "permutation a(c)");
        assertEquals("the marker on a names step c, which this permutation does not run", absent.problem());
        SpecException unclosed = refused(sessions + "permutation a(c c)");
        assertEquals("expected ',' or ')' in the markers of a, found 'c'", unclosed.problem());
        SpecException count = refused(sessions + "permutation a(c notices) c");
        assertEquals("expected a number after 'notices', found ')'", count.problem());
    }

    @Test
    void strayCharactersAndOrderMistakesAreNamed() {
        assertEquals("t.spec:1:12: unexpected character ';'", refused("session s1 ; step a { }").getMessage());
        assertEquals("t.spec:4:1: sessions come before the permutation lines",
                refused("session s1\nstep a { }\npermutation a\nsession s2\nstep b { }").getMessage());
        assertEquals("t.spec:2:1: setup blocks come before the teardown block",
                refused("teardown { }\nsetup { }\nsession s\nstep a { }").getMessage());
        assertEquals("t.spec:2:17: the quoted name that starts here runs into a new line",
                refused("session s\nstep a { } step \"x\ny\" { }").getMessage());
    }

    @Test
    void aPermutationGivenApartIsReadAgainstTheSpecsSteps() throws SpecException {
        Spec spec = read("session s1\nstep a { }\nsession s2\nstep b { }\n");
        assertEquals("b a(b)", SpecReader.permutation(spec, "--permutation", "b a(b)").toString());
        assertEquals("a", SpecReader.permutation(spec, "--permutation", "permutation a").toString());
        SpecException unknown = assertThrows(SpecException.class,
                () -> SpecReader.permutation(spec, "--permutation", "a  c"));
        assertEquals("--permutation:1:4: the permutation names step c, which no session defines", unknown.getMessage());
        SpecException empty = assertThrows(SpecException.class, () -> SpecReader.permutation(spec, "--permutation", " "));
        assertEquals("a permutation lists at least one step, found the end of the file", empty.problem());
    }
}
