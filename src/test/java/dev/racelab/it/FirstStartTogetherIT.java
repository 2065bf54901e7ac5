package dev.racelab.it;

import dev.racelab.support.Child;
import dev.racelab.support.Children;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledIfEnvironmentVariable;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * Two RaceLabs started at the same moment on a fresh data directory (two windows opened at once, or
 * two test JVMs on a new machine): both unpack-or-wait for the one copy of PostgreSQL's binaries,
 * and both run. Before, the second took the first's unpack in progress for a damaged one and
 * removed it under it: the first's initdb was gone.
 */
@Tag("it")
@DisabledIfEnvironmentVariable(named = "RACELAB_PG_URL", matches = ".+", disabledReason = "about RaceLab's own "
        + "embedded servers, started alike whatever servers the suite uses: the run on embedded servers has it")
class FirstStartTogetherIT {

    private final Children children = new Children();

    @AfterEach
    void stopChildren() {
        children.close();
    }

    @Test
    void twoRaceLabsStartingTogetherOnAFreshDataDirectoryBothRun(@TempDir Path home) throws Exception {
        Map<String, String> env = Map.of("RACELAB_HOME", home.toString());
        Child first = children.jar(env, "run", "counter", "--workers", "1", "--ops", "1", "--json");
        Child second = children.jar(env, "run", "counter", "--workers", "1", "--ops", "1", "--json");
        assertEquals(0, first.await(150), "the first: " + first.err());
        assertEquals(0, second.await(150), "the second: " + second.err());
        for (Child child : new Child[] {first, second}) {
            assertFalse(child.err().contains("were damaged"), "nobody's unpack was taken for damage: " + child.err());
        }
    }
}
