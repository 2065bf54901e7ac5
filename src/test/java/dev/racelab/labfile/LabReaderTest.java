package dev.racelab.labfile;

import dev.racelab.isolation.PostgresSpecs;
import dev.racelab.isolation.Spec;
import dev.racelab.isolation.SpecException;
import dev.racelab.isolation.SpecReader;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Lab files as docs/lab-format.md writes them, and every PostgreSQL isolation spec read as one. */
@Tag("engine")
class LabReaderTest {

    @ParameterizedTest
    @ValueSource(ints = {17, 15})
    void everyIsolationSpecReadsAsALabFileAndIsTheSpecItWas(int major) throws Exception {
        PostgresSpecs specs = PostgresSpecs.forMajor(major);
        for (Path file : specs.allSpecs()) {
            LabFile lab = LabReader.read(file);
            Spec spec = SpecReader.read(file);
            assertEquals(spec, lab.spec(), file.toString());
            // What the lab reader itself read: the same sessions, steps and SQL, the same setup.
            assertEquals(spec.sessions().stream().flatMap(s -> s.steps().stream().map(st -> s.name() + "/" + st.name()
                    + "/" + st.sql())).toList(), lab.sessions().stream().flatMap(s -> s.steps().stream().map(st ->
                    s.name() + "/" + st.name() + "/" + st.block().text())).toList(), file.toString());
            assertEquals(spec.setups(), lab.setup().stream().map(LabFile.Block::text).toList(), file.toString());
            assertTrue(lab.sessions().stream().allMatch(s -> s.workers() == 1 && s.ops() == 1), file.toString());
        }
    }

    @Test
    void theDocumentsFirstExampleReadsAsItSays() throws Exception {
        String doc = Files.readString(Path.of("docs/lab-format.md"));
        String example = doc.split("```")[1];
        LabFile lab = LabReader.read("counter", "counter.lab", example);
        assertEquals("Lost increment", lab.title());
        assertNull(lab.spec(), "it uses what a spec lacks");
        assertEquals(List.of("read_then_write", "atomic", "row_lock"), lab.switches().get(0).choices());
        LabFile.LabSession client = lab.sessions().get(0);
        assertEquals(List.of("client", 4, 25), List.of(client.name(), client.workers(), client.ops()));
        assertEquals(List.of("before_read", "after_read"), client.gates());
        assertEquals(List.of("begin", "read", "lock", "write", "commit", "add"),
                client.steps().stream().map(LabFile.LabStep::name).toList());
        LabFile.LabStep write = client.steps().get(3);
        assertTrue(write.when().runsWith("read_then_write") && write.when().runsWith("row_lock")
                && !write.when().runsWith("atomic"));
        assertEquals("n", client.steps().get(1).capture());
        assertEquals("lost increment", lab.invariants().get(0).verdict());
        assertEquals("= operations", lab.invariants().get(0).test().toString());
    }

    private static LabFile lab(String body) throws SpecException {
        return LabReader.read("t", "t.lab", body + "\ninvariant \"x\" pg { SELECT 1 } = 1\n");
    }

    @Test
    void aDollarInsideQuotesCommentsOrDollarQuotingIsNoValue() throws Exception {
        LabFile lab = lab("""
                session c workers 2
                step s pg { SELECT '$a', "b$c", $$ $d $$, $tag$ $e $tag$, $1 -- $f
                            /* $g */ }
                step r redis { SET racelab:$run:x '$h' }
                """);
        assertEquals(2, lab.sessions().get(0).steps().size());
    }

    @Test
    void redisKeysMayCarryValuesAfterThePrefixAndScriptsNameTheirKeys() throws Exception {
        lab("""
                session c workers 2
                step t pg { SELECT 1 } capture token
                step e redis { EVAL "return redis.call('SET', KEYS[1], ARGV[1])" 1 racelab:$run:lock $token }
                step w redis { WATCH racelab:a racelab:b }
                """);
        SpecException outside = assertThrows(SpecException.class, () -> lab("""
                session c workers 2
                step e redis { EVAL "return 1" 2 racelab:a other }
                """));
        assertEquals("t.lab:2:44: the key other does not begin with racelab: and a lab file may name only keys that do",
                outside.getMessage());
    }

    @Test
    void aValueIsCapturedForTheRestOfItsSessionOnly() {
        SpecException e = assertThrows(SpecException.class, () -> lab("""
                session a workers 2
                step r pg { SELECT 1 } capture n
                session b
                step w pg { SELECT $n }
                """));
        assertEquals("t.lab:4:20: step w uses $n, which no earlier step of its session captures (capture n)",
                e.getMessage());
    }

    @Test
    void aPermutationMayNameAStepCalledInvariant() throws Exception {
        LabFile lab = LabReader.read("t", "t.spec", """
                session s1
                step invariant { SELECT 1; }
                session s2
                step s2a { SELECT 2; }
                permutation s2a invariant
                """);
        assertEquals("s2a invariant", lab.spec().declared().get(0).names());
    }

    @Test
    void aScriptReachesRedisOnlyThroughTheKeysItDeclares() throws Exception {
        lab("""
                session c workers 2
                step u redis { EVAL "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.pcall('DEL', KEYS[1]) end" 1 racelab:lock $worker }
                """);
        for (String script : List.of("return redis.call('DEL', 'other')", "return redis.call('FLUSHALL')",
                "local c = redis.call return c('DEL', KEYS[1])", "return _G['redis'].call('DEL', KEYS[2])",
                "return redis.call('GET', KEYS[2])")) {
            SpecException e = assertThrows(SpecException.class, () -> lab("session c workers 2\nstep u redis { EVAL \""
                    + script + "\" 1 racelab:lock }\n"), script);
            assertTrue(e.getMessage().startsWith("t.lab:2:21: the script"), e.getMessage());
        }
    }

    @Test
    void aQuoteInsideAnotherKindOfQuoteHidesNoValue() {
        SpecException e = assertThrows(SpecException.class, () -> lab("""
                session c workers 2
                step s redis { SET racelab:a "don't" $undefined }
                """));
        assertTrue(e.getMessage().contains("uses $undefined"), e.getMessage());
        SpecException pg = assertThrows(SpecException.class, () -> lab("""
                session c workers 2
                step s pg { SELECT E'it\\'s', $undefined }
                """));
        assertTrue(pg.getMessage().contains("uses $undefined"), pg.getMessage());
    }
}
