package dev.racelab.it;

import dev.racelab.support.Child;
import dev.racelab.support.Children;
import dev.racelab.support.PgProbe;
import dev.racelab.support.Poll;
import dev.racelab.support.ProcFs;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.condition.DisabledIfEnvironmentVariable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * RaceLab's own embedded PostgreSQL stopped mid-run (SIGSTOP to the postmaster and every process
 * of it, as a debugger or a stalled machine would): the command names the server and ends within
 * the run's timeout and a few seconds, exit 1, and leaves no process of that server behind. It used
 * to print its summary and then spend 20 s or more on stopping a server that could not stop.
 *
 * <p>Stopped while it starts, the same server used to hold the start for ever: the embedded
 * server library waits for it to answer with no bound on a login.
 */
@Tag("it")
@DisabledIfEnvironmentVariable(named = "RACELAB_PG_URL", matches = ".+", disabledReason = "about RaceLab's own "
        + "embedded servers, started alike whatever servers the suite uses: the run on embedded servers has it")
class FrozenEmbeddedServerIT {

    private static final int TIMEOUT_SECONDS = 2;
    /** From the freeze: the timeout, RaceLab's bounds on asking a silent server (5 s), and the exit. */
    private static final long BOUND_SECONDS = TIMEOUT_SECONDS + 12;

    /** From the start: the wait for an answer (30 s), its last bounded try (5 s), stopping the server, and the exit. */
    private static final long START_BOUND_SECONDS = 60;

    @TempDir
    Path home;

    private final Children children = new Children();

    @AfterEach
    void stopChildren() {
        children.close();
    }

    @Test
    void anEmbeddedPostgresStoppedWhileStartingIsNamedAndStopped() throws Exception {
        Map<String, String> env = Map.of("RACELAB_HOME", home.toString());
        assertEquals(0, children.jar(env, "run", "counter", "--workers", "1", "--ops", "1").await(120),
                "a first run sets up the cluster");
        // Each new session of this server sleeps a minute before it logs in, so the server cannot
        // be ready before the freeze below, however late the freeze comes.
        Files.writeString(home.resolve("postgres/slot-0/data/postgresql.conf"), "\npre_auth_delay = 60\n",
                StandardOpenOption.APPEND);
        Path pidFile = home.resolve("postgres/slot-0/data/postmaster.pid");
        long start = System.nanoTime();
        Child child = children.jar(env, "run", "counter", "--workers", "1", "--ops", "1", "--timeout", "2");
        List<Long> frozen = new ArrayList<>();
        try {
            assertTrue(Poll.eventually(Duration.ofSeconds(60), () -> postmaster(pidFile).isPresent()),
                    "the server starts; stderr: " + child.err());
            ProcessHandle postmaster = postmaster(pidFile).orElseThrow();
            // A process it forks while it is being stopped escapes one sweep; a stopped server forks
            // no more, so the later sweeps catch every one.
            for (int sweep = 0; sweep < 10; sweep++) {
                List<Long> found = new ArrayList<>(List.of(postmaster.pid()));
                postmaster.descendants().forEach(p -> found.add(p.pid()));
                signal("-STOP", found);
                found.stream().filter(pid -> !frozen.contains(pid)).forEach(frozen::add);
                Thread.sleep(50);
            }

            int code = child.await(START_BOUND_SECONDS + 30);
            long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
            assertEquals(1, code, "a server failure; stderr: " + child.err());
            assertTrue(seconds <= START_BOUND_SECONDS, "ended " + seconds + " s after the start; stderr: " + child.err());
            assertTrue(child.err().contains("PostgreSQL started but did not answer within 30 s"), child.err());
            assertTrue(Poll.eventually(Duration.ofSeconds(10), () -> ProcFs.runningIn(home).isEmpty()),
                    "the stopped server's processes are gone: " + ProcFs.runningIn(home));
        } finally {
            signal("-CONT", frozen);
            child.stop();
        }
    }

    /** The postmaster that {@code pidFile} names, once it names one that runs (a single-user backend's pid is negative). */
    private static Optional<ProcessHandle> postmaster(Path pidFile) {
        try {
            String first = Files.readAllLines(pidFile).get(0).strip();
            return first.matches("\\d+") ? ProcessHandle.of(Long.parseLong(first)) : Optional.empty();
        } catch (IOException | RuntimeException notYet) {
            return Optional.empty();
        }
    }

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
