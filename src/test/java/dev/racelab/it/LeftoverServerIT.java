package dev.racelab.it;

import dev.racelab.support.Child;
import dev.racelab.support.Poll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A RaceLab killed outright (SIGKILL: no shutdown hooks) leaves its embedded PostgreSQL running;
 * the next RaceLab that takes the same slot stops it before starting its own.
 */
@Tag("it")
class LeftoverServerIT {

    @Test
    void theNextStartStopsThePostgresAKilledRaceLabLeftRunning(@TempDir Path home) throws Exception {
        Map<String, String> env = Map.of("RACELAB_HOME", home.toString());
        Path pidFile = home.resolve("postgres/slot-0/data/postmaster.pid");

        Child first = Child.jar(env, "run", "counter", "--workers", "1", "--ops", "100000",
                "--delay", "before-read=20");
        assertTrue(Poll.eventually(Duration.ofSeconds(90), () -> serverReady(pidFile)), "PostgreSQL started");
        long postgresPid = Long.parseLong(Files.readAllLines(pidFile).get(0).strip());
        first.process().destroyForcibly().waitFor();
        assertTrue(ProcessHandle.of(postgresPid).map(ProcessHandle::isAlive).orElse(false),
                "killed without a chance to clean up, the RaceLab left PostgreSQL running");

        Child second = Child.jar(env, "run", "counter", "--workers", "2", "--ops", "5", "--json");
        assertEquals(0, second.await(120), second.err());
        assertTrue(second.err().contains("Stopped a PostgreSQL left running by an earlier RaceLab"), second.err());
        assertFalse(alive(postgresPid), "the leftover server is gone");
        assertFalse(Files.exists(pidFile), "and the second RaceLab stopped its own server on exit");
    }

    @Test
    void theNextStartStopsTheRedisAKilledRaceLabLeftRunning(@TempDir Path home) throws Exception {
        Map<String, String> env = Map.of("RACELAB_HOME", home.toString());
        Path pidFile = home.resolve("redis/slot-0/redis.pid");
        Child first = Child.jar(env, "run", "redis-primitives", "--workers", "2", "--ops", "100000",
                "--delay", "in-critical-section=20");
        assertTrue(Poll.eventually(Duration.ofSeconds(90), () -> Files.exists(pidFile)),
                "Redis started");
        long redisPid = Long.parseLong(Files.readAllLines(pidFile).get(0).strip());
        assertTrue(Poll.eventually(Duration.ofSeconds(30), () -> alive(redisPid)));
        first.process().destroyForcibly().waitFor();
        assertTrue(alive(redisPid), "killed without a chance to clean up, the RaceLab left Redis running");

        Child second = Child.jar(env, "run", "redis-primitives", "--workers", "2", "--ops", "3", "--json");
        assertEquals(0, second.await(120), second.err());
        assertTrue(second.err().contains("Stopped a Redis left running by an earlier RaceLab"), second.err());
        assertTrue(Poll.eventually(Duration.ofSeconds(10), () -> !alive(redisPid)), "the leftover Redis is gone");
    }

    @Test
    void aRaceLabToldToStopStopsItsServerOnTheWayOut(@TempDir Path home) throws Exception {
        Map<String, String> env = Map.of("RACELAB_HOME", home.toString());
        Path pidFile = home.resolve("postgres/slot-0/data/postmaster.pid");
        Child run = Child.jar(env, "run", "counter", "--workers", "1", "--ops", "100000", "--delay", "before-read=20");
        assertTrue(Poll.eventually(Duration.ofSeconds(90), () -> serverReady(pidFile)), "PostgreSQL started");
        long postgresPid = Long.parseLong(Files.readAllLines(pidFile).get(0).strip());
        run.process().destroy();
        run.await(60);
        assertTrue(Poll.eventually(Duration.ofSeconds(10), () -> !alive(postgresPid)),
                "SIGTERM (or Ctrl-C) stops the embedded PostgreSQL too");
    }

    /** Whether postmaster.pid says the server is up (initdb's bootstrap backend writes one too). */
    private static boolean serverReady(Path pidFile) {
        try {
            return Files.readAllLines(pidFile).stream().anyMatch(line -> line.strip().equals("ready"));
        } catch (java.io.IOException notYet) {
            return false;
        }
    }

    private static boolean alive(long pid) {
        Optional<ProcessHandle> handle = ProcessHandle.of(pid);
        return handle.isPresent() && handle.get().isAlive();
    }
}
