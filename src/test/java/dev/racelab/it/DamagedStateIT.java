package dev.racelab.it;

import dev.racelab.support.Child;
import dev.racelab.support.Children;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.condition.DisabledIfEnvironmentVariable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * RaceLab's embedded PostgreSQL, damaged under its data directory between two runs of the
 * command line (each a fresh process, in a fresh data directory): the second run heals what it
 * finds, says so in one line naming the file, and runs; nothing prints a stack trace.
 */
@Tag("it")
@DisabledIfEnvironmentVariable(named = "RACELAB_PG_URL", matches = ".+", disabledReason = "about RaceLab's own "
        + "embedded servers, started alike whatever servers the suite uses: the run on embedded servers has it")
class DamagedStateIT {

    private final Children children = new Children();

    @AfterEach
    void stopChildren() {
        children.close();
    }

    /** One short run of the counter lab, as a user runs it; it must succeed. */
    private Child run(Path home) throws Exception {
        Child child = children.jar(Map.of("RACELAB_HOME", home.toString()), "run", "counter", "--workers", "1",
                "--ops", "1", "--json");
        assertEquals(0, child.await(120), child.err());
        return child;
    }

    @Test
    void aTruncatedPostgresBinaryIsUnpackedAgain(@TempDir Path home) throws Exception {
        run(home);
        Path postgres;
        try (Stream<Path> unpacked = Files.list(home.resolve("postgres/bin"))) {
            postgres = unpacked.filter(Files::isDirectory).findFirst().orElseThrow().resolve("bin/postgres");
        }
        long size = Files.size(postgres);
        Files.write(postgres, Arrays.copyOf(Files.readAllBytes(postgres), 4096));

        Child second = run(home);

        assertTrue(second.err().contains("bin/postgres is 4096 bytes, " + size + " expected"), second.err());
        assertTrue(second.err().contains("they were unpacked again"), second.err());
        assertEquals(size, Files.size(postgres), "the binary is whole again");
        assertFalse(second.err().contains("\tat "), "no stack trace: " + second.err());
    }

    @Test
    void aClusterWithAWrongPgVersionIsSetUpAnewInOneLine(@TempDir Path home) throws Exception {
        run(home);
        Path pgVersion = home.resolve("postgres/slot-0/data/PG_VERSION");
        Files.writeString(pgVersion, "99\n");

        Child second = run(home);

        String err = second.err();
        assertTrue(err.lines().anyMatch(line -> line.contains(pgVersion.getParent().toString())
                && line.contains("set up anew") && line.contains("version 99")), err);
        assertFalse(err.contains("\tat ") || err.contains("Exception"), "no stack trace: " + err);
    }
}
