package dev.racelab.it;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.racelab.support.Child;
import dev.racelab.support.Children;
import dev.racelab.support.TestServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The built jar and the script users run, as separate processes. */
@Tag("it")
class LauncherIT {

    /** Every child and the servers it left are stopped after each test, passed or failed. */
    private final Children children = new Children();

    @AfterEach
    void stopChildren() {
        children.close();
    }

    @Test
    void thePlainJarListsTheLabs() throws Exception {
        Child child = children.jar(Map.of(), "list", "--json");
        assertEquals(0, child.await(60), child.err());
        JsonObject json = JsonParser.parseString(child.out()).getAsJsonObject();
        assertEquals("counter", json.getAsJsonArray("labs").get(0).getAsJsonObject().get("id").getAsString());
    }

    @Test
    void theScriptRunsALabHeadlessAndPrintsTheContractsJson() throws Exception {
        Child child = children.script(TestServers.childEnvironment(), "run", "fencing", "--strategy", "fenced-cas",
                "--workers", "5", "--ops", "4", "--delay", "after-token=0-3", "--json", "--expect", "SAFE");
        assertEquals(0, child.await(120), child.err());
        JsonObject json = JsonParser.parseString(child.out()).getAsJsonObject();
        assertEquals("SAFE", json.get("verdict").getAsString());
        assertEquals(20, json.getAsJsonObject("metrics").get("maxToken").getAsLong());
    }

    @Test
    void theScriptRejectsBadInputWithExitTwoAndOneLine() throws Exception {
        Child child = children.script(Map.of(), "run", "counter", "--workers", "0");
        assertEquals(2, child.await(60));
        assertEquals("racelab: --workers must be from 1 to 1000, not 0\n", child.err());
        assertTrue(child.out().isEmpty());
    }

    /**
     * A plain {@code su -} login has no locale: Java's standard output is then US-ASCII, and every
     * dash and dot of the summary came out as "?". The command line writes UTF-8 whatever the locale.
     */
    @Test
    void inAPosixLocaleTheOutputIsStillUtf8NotQuestionMarks() throws Exception {
        Child child = children.jar(Map.of("LANG", "C", "LC_ALL", "C"), "list");
        assertEquals(0, child.await(60), child.err());
        assertTrue(child.out().contains("counter — Lost increments"), child.out());
        assertTrue(child.out().contains("needs: PostgreSQL · workers: 4"), child.out());
        assertFalse(child.out().contains("?"), child.out());
    }

    @Test
    void theCommandLineNeverLoadsJavaFx() throws Exception {
        Child child = Child.start(java.util.List.of("java", "-Xlog:class+load=info", "-jar", Child.jar().toString(),
                "run", "counter", "--workers", "3", "--workers", "4"), Map.of());
        assertEquals(2, child.await(60), child.err());
        assertTrue(child.out().contains("dev.racelab.cli.Cli "), "the class loading log is there");
        assertTrue(child.out().contains("picocli.CommandLine "), "the parser was used");
        assertTrue(child.out().lines().noneMatch(line -> line.contains(" javafx.") || line.contains("com.sun.javafx")),
                "no JavaFX class loaded");
        assertEquals("racelab: --workers is given more than once: give it once (only --delay and --set repeat)\n",
                child.err());
    }
}
