package dev.racelab.it;

import dev.racelab.support.Child;
import dev.racelab.support.PgProbe;
import dev.racelab.support.Poll;
import dev.racelab.support.ProcFs;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.condition.DisabledIfEnvironmentVariable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A RaceLab's own embedded PostgreSQL killed outright mid-run (SIGKILL to the postmaster): the
 * command says so in one line naming the server, with no stack trace from the embedded server's
 * library as it stops a server that is already gone, and exits 1.
 */
@Tag("it")
@DisabledIfEnvironmentVariable(named = "RACELAB_PG_URL", matches = ".+", disabledReason = "about RaceLab's own "
        + "embedded servers, started alike whatever servers the suite uses: the run on embedded servers has it")
class KilledPostmasterIT {

    @TempDir
    Path home;

    @Test
    void aKilledEmbeddedPostgresIsOneLineNamingItNotAStackTrace() throws Exception {
        Path pidFile = home.resolve("postgres/slot-0/data/postmaster.pid");
        Child child = Child.jar(Map.of("RACELAB_HOME", home.toString()), "run", "counter", "--workers", "2",
                "--ops", "100000", "--delay", "after-read=20", "--timeout", "60");
        try {
            assertTrue(Poll.eventually(Duration.ofSeconds(120), () -> PgProbe.workersOnEmbedded(pidFile) >= 2),
                    "the run is under way");
            List<String> pidLines = Files.readAllLines(pidFile);
            long postmaster = Long.parseLong(pidLines.get(0).strip());
            String port = pidLines.get(3).strip();
            assertTrue(ProcessHandle.of(postmaster).orElseThrow().destroyForcibly(), "SIGKILL sent to the postmaster");

            assertEquals(1, child.await(90), "a server failure; stderr: " + child.err());
            List<String> err = child.err().lines().toList();
            assertEquals(List.of(), err.stream().filter(line -> line.contains("Exception") || line.contains("\tat ")
                    || line.startsWith("ERROR ") || line.startsWith("WARN ")).toList(), "no stack trace or library log; stderr: " + child.err());
            List<String> said = err.stream().filter(line -> line.startsWith("racelab:")).toList();
            assertEquals(1, said.size(), child.err());
            assertTrue(said.get(0).startsWith("racelab: PostgreSQL at 127.0.0.1:" + port + " "), said.get(0));
            assertTrue(child.out().contains("ERROR"), "the summary tells the run: " + child.out());
        } finally {
            child.process().destroyForcibly();
            child.process().onExit().get();
            // The killed postmaster's backends end by themselves when they notice; any left go now.
            ProcFs.killAllIn(home);
        }
    }
}
