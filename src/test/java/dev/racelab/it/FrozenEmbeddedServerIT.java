package dev.racelab.it;

import dev.racelab.support.Child;
import dev.racelab.support.PgProbe;
import dev.racelab.support.Poll;
import dev.racelab.support.ProcFs;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * RaceLab's own embedded PostgreSQL stopped mid-run (SIGSTOP to the postmaster and every process
 * of it, as a debugger or a stalled machine would): the command names the server and ends within
 * the run's timeout and a few seconds, exit 1, and leaves no process of that server behind. It used
 * to print its summary and then spend 20 s or more on stopping a server that could not stop.
 */
@Tag("it")
class FrozenEmbeddedServerIT {

    private static final int TIMEOUT_SECONDS = 2;
    /** From the freeze: the timeout, RaceLab's bounds on asking a silent server (5 s), and the exit. */
    private static final long BOUND_SECONDS = TIMEOUT_SECONDS + 12;

    @TempDir
    Path home;

    @Test
    void aStoppedEmbeddedPostgresIsNamedAndRaceLabStillExitsPromptlyLeavingNothing() throws Exception {
        Path pidFile = home.resolve("postgres/slot-0/data/postmaster.pid");
        Child child = Child.jar(Map.of("RACELAB_HOME", home.toString()), "run", "counter", "--workers", "2",
                "--ops", "100000", "--delay", "after-read=20", "--timeout", String.valueOf(TIMEOUT_SECONDS));
        List<Long> frozen = new ArrayList<>();
        try {
            assertTrue(Poll.eventually(Duration.ofSeconds(120), () -> PgProbe.workersOnEmbedded(pidFile) >= 2),
                    "the run is under way");
            List<String> pidLines = Files.readAllLines(pidFile);
            ProcessHandle postmaster = ProcessHandle.of(Long.parseLong(pidLines.get(0).strip())).orElseThrow();
            String port = pidLines.get(3).strip();
            frozen.add(postmaster.pid());
            postmaster.descendants().forEach(p -> frozen.add(p.pid()));
            signal("-STOP", frozen);
            long start = System.nanoTime();

            int code = child.await(60);
            long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
            assertEquals(1, code, "a server failure; stderr: " + child.err());
            assertTrue(seconds <= BOUND_SECONDS, "ended " + seconds + " s after the freeze; stderr: " + child.err());
            assertTrue(child.err().lines().anyMatch(line -> line.startsWith("racelab: PostgreSQL at 127.0.0.1:" + port + " ")),
                    child.err());
            assertTrue(Poll.eventually(Duration.ofSeconds(10), () -> ProcFs.runningIn(home).isEmpty()),
                    "the stopped server's processes are gone: " + ProcFs.runningIn(home));
        } finally {
            signal("-CONT", frozen);
            child.stop();
        }
    }

    private static void signal(String signal, List<Long> pids) throws Exception {
        if (pids.isEmpty()) {
            return;
        }
        List<String> command = new ArrayList<>(List.of("kill", signal));
        pids.forEach(pid -> command.add(String.valueOf(pid)));
        // Some may have ended already; kill says so and signals the rest.
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start().waitFor(10, TimeUnit.SECONDS);
    }
}
