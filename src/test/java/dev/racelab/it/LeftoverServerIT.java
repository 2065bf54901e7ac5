package dev.racelab.it;

import dev.racelab.support.Child;
import dev.racelab.support.Children;
import dev.racelab.support.Poll;
import dev.racelab.support.ProcFs;
import dev.racelab.support.Watchmen;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.condition.DisabledIfEnvironmentVariable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A RaceLab killed alone (SIGKILL: no shutdown hooks; or its display gone, which ends it the same
 * way) has its embedded servers stopped by their watchmen, the shells it leaves waiting on a pipe
 * only it held. Killed outright with its watchmen (its whole process group, an out-of-memory kill
 * of its session), it leaves its servers running; the next RaceLab to start stops them before
 * starting its own, in the slot it takes and in every other slot no live RaceLab holds (two killed
 * together leave servers in two slots).
 */
@Tag("it")
@DisabledIfEnvironmentVariable(named = "RACELAB_PG_URL", matches = ".+", disabledReason = "about RaceLab's own "
        + "embedded servers, started alike whatever servers the suite uses: the run on embedded servers has it")
class LeftoverServerIT {

    /** Every child and the servers it left are stopped after each test, passed or failed. */
    private final Children children = new Children();

    @AfterEach
    void stopChildren() {
        children.close();
    }

    @Test
    void theNextStartStopsThePostgresAKilledRaceLabLeftRunning(@TempDir Path home) throws Exception {
        Map<String, String> env = Map.of("RACELAB_HOME", home.toString());
        Path pidFile = home.resolve("postgres/slot-0/data/postmaster.pid");

        Child first = children.jar(env, "run", "counter", "--workers", "1", "--ops", "100000",
                "--delay", "before-read=20");
        assertTrue(Poll.eventually(Duration.ofSeconds(90), () -> serverReady(pidFile)), "PostgreSQL started");
        long postgresPid = Long.parseLong(Files.readAllLines(pidFile).get(0).strip());
        killOutright(List.of(first));
        assertTrue(ProcessHandle.of(postgresPid).map(ProcessHandle::isAlive).orElse(false),
                "killed without a chance to clean up, the RaceLab left PostgreSQL running");

        Child second = children.jar(env, "run", "counter", "--workers", "2", "--ops", "5", "--json");
        assertEquals(0, second.await(120), second.err());
        assertTrue(second.err().contains("Stopped a PostgreSQL left running by an earlier RaceLab"), second.err());
        assertFalse(alive(postgresPid), "the leftover server is gone");
        assertFalse(Files.exists(pidFile), "and the second RaceLab stopped its own server on exit");
    }

    @Test
    void theNextStartStopsTheRedisAKilledRaceLabLeftRunning(@TempDir Path home) throws Exception {
        Map<String, String> env = Map.of("RACELAB_HOME", home.toString());
        Path pidFile = home.resolve("redis/slot-0/redis.pid");
        Child first = children.jar(env, "run", "redis-primitives", "--workers", "2", "--ops", "100000",
                "--delay", "in-critical-section=20", "--delay", "holder-crashes=0@client-2");
        assertTrue(Poll.eventually(Duration.ofSeconds(90), () -> livePid(pidFile) > 0), "Redis started");
        long redisPid = livePid(pidFile);
        killOutright(List.of(first));
        assertTrue(alive(redisPid), "killed without a chance to clean up, the RaceLab left Redis running");

        Child second = children.jar(env, "run", "redis-primitives", "--workers", "2", "--ops", "3", "--json");
        assertEquals(0, second.await(120), second.err());
        assertTrue(second.err().contains("Stopped a Redis left running by an earlier RaceLab"), second.err());
        assertTrue(Poll.eventually(Duration.ofSeconds(10), () -> !alive(redisPid)), "the leftover Redis is gone");
    }

    @Test
    void theWatchmenStopTheServersOfARaceLabKilledAlone(@TempDir Path home) throws Exception {
        Map<String, String> env = Map.of("RACELAB_HOME", home.toString());
        Path postmasterPid = home.resolve("postgres/slot-0/data/postmaster.pid");
        Child counter = children.jar(env, "run", "counter", "--workers", "1", "--ops", "100000",
                "--delay", "before-read=20");
        assertTrue(Poll.eventually(Duration.ofSeconds(90), () -> serverReady(postmasterPid)), "PostgreSQL started");
        long postgresPid = Long.parseLong(Files.readAllLines(postmasterPid).get(0).strip());
        assertTrue(Poll.eventually(Duration.ofSeconds(60), () -> !Watchmen.of(counter).isEmpty()), "PostgreSQL is watched");
        counter.process().destroyForcibly().waitFor();
        assertTrue(Poll.eventually(Duration.ofSeconds(20), () -> !alive(postgresPid) && !Files.exists(postmasterPid)),
                "the killed RaceLab's PostgreSQL was shut down (its pid file gone: a clean stop)");

        Path redisPidFile = home.resolve("redis/slot-0/redis.pid");
        Child mutex = children.jar(env, "run", "redis-primitives", "--strategy", "hardened-mutex", "--workers", "2",
                "--ops", "100000", "--delay", "before-acquire=20");
        assertTrue(Poll.eventually(Duration.ofSeconds(90), () -> livePid(redisPidFile) > 0), "Redis started");
        long redisPid = livePid(redisPidFile);
        assertTrue(Poll.eventually(Duration.ofSeconds(60), () -> !Watchmen.of(mutex).isEmpty()), "Redis is watched");
        mutex.process().destroyForcibly().waitFor();
        assertTrue(Poll.eventually(Duration.ofSeconds(20), () -> !alive(redisPid)),
                "the killed RaceLab's Redis was shut down");
        assertTrue(Files.readString(home.resolve("redis/slot-0/redis.log")).contains("Received SIGTERM"),
                "by the signal Redis shuts down on");
    }

    @Test
    void aRaceLabToldToStopStopsItsServerOnTheWayOut(@TempDir Path home) throws Exception {
        Map<String, String> env = Map.of("RACELAB_HOME", home.toString());
        Path pidFile = home.resolve("postgres/slot-0/data/postmaster.pid");
        Child run = children.jar(env, "run", "counter", "--workers", "1", "--ops", "100000", "--delay", "before-read=20");
        assertTrue(Poll.eventually(Duration.ofSeconds(90), () -> serverReady(pidFile)), "PostgreSQL started");
        long postgresPid = Long.parseLong(Files.readAllLines(pidFile).get(0).strip());
        // Its watchman would stop the server too: without it, only RaceLab's own stop can.
        assertTrue(Watchmen.killOf(run, 1), "the RaceLab watches its server");
        run.process().destroy();
        run.await(60);
        assertTrue(Poll.eventually(Duration.ofSeconds(10), () -> !alive(postgresPid)),
                "SIGTERM (or Ctrl-C) stops the embedded PostgreSQL too");
    }

    @Test
    void aStartStopsThePostgresesOfEverySlotThatTwoKilledRaceLabsLeft(@TempDir Path home) throws Exception {
        Map<String, String> env = Map.of("RACELAB_HOME", home.toString());
        List<Child> children = new ArrayList<>();
        try {
            List<Long> leftovers = new ArrayList<>();
            for (int slot = 0; slot < 2; slot++) {
                // The first holds slot 0 while it lives, so the second takes slot 1.
                Path pidFile = home.resolve("postgres/slot-" + slot + "/data/postmaster.pid");
                children.add(Child.jar(env, "run", "counter", "--workers", "1", "--ops", "100000",
                        "--delay", "before-read=20"));
                assertTrue(Poll.eventually(Duration.ofSeconds(90), () -> serverReady(pidFile)),
                        "PostgreSQL started in slot " + slot);
                leftovers.add(Long.parseLong(Files.readAllLines(pidFile).get(0).strip()));
            }
            killOutright(children);
            assertTrue(leftovers.stream().allMatch(LeftoverServerIT::alive), "both RaceLabs left PostgreSQL running");

            Child third = Child.jar(env, "run", "counter", "--workers", "2", "--ops", "5", "--json");
            children.add(third);
            assertEquals(0, third.await(120), third.err());
            assertEquals(2, third.err().lines().filter(line ->
                    line.startsWith("Stopped a PostgreSQL left running by an earlier RaceLab")).count(), third.err());
            assertTrue(Poll.eventually(Duration.ofSeconds(20), () -> leftovers.stream().noneMatch(LeftoverServerIT::alive)),
                    "both leftover servers are gone, slot 1's too");
        } finally {
            stopAll(children, home);
        }
    }

    @Test
    void aStartStopsTheRedisesOfEverySlotThatTwoKilledRaceLabsLeft(@TempDir Path home) throws Exception {
        Map<String, String> env = Map.of("RACELAB_HOME", home.toString());
        List<Child> children = new ArrayList<>();
        try {
            List<Long> leftovers = new ArrayList<>();
            for (int slot = 0; slot < 2; slot++) {
                Path pidFile = home.resolve("redis/slot-" + slot + "/redis.pid");
                children.add(Child.jar(env, "run", "redis-primitives", "--workers", "2", "--ops", "100000",
                        "--delay", "in-critical-section=20", "--delay", "holder-crashes=0@client-2"));
                // Complete, not merely there: a whole line naming a live process.
                assertTrue(Poll.eventually(Duration.ofSeconds(90), () -> livePid(pidFile) > 0),
                        "Redis started in slot " + slot);
                leftovers.add(livePid(pidFile));
            }
            killOutright(children);
            assertTrue(leftovers.stream().allMatch(LeftoverServerIT::alive), "both RaceLabs left Redis running");

            Child third = Child.jar(env, "run", "redis-primitives", "--workers", "2", "--ops", "3", "--json");
            children.add(third);
            assertEquals(0, third.await(120), third.err());
            assertEquals(2, third.err().lines().filter(line ->
                    line.startsWith("Stopped a Redis left running by an earlier RaceLab")).count(), third.err());
            assertTrue(Poll.eventually(Duration.ofSeconds(20), () -> leftovers.stream().noneMatch(LeftoverServerIT::alive)),
                    "both leftover servers are gone, slot 1's too");
        } finally {
            stopAll(children, home);
        }
    }

    /**
     * Kills each child with its watchmen (the {@code racelab-guard} shells it started), watchmen
     * first, as a kill of its whole process group would: what it leaves running stays running.
     */
    private static void killOutright(List<Child> children) throws Exception {
        for (Child child : children) {
            assertTrue(Watchmen.killOf(child, 1), "the RaceLab watches its server");
        }
        killTogether(children);
    }

    /** SIGKILL to every child at once, then waits for each to be gone. */
    private static void killTogether(List<Child> children) throws InterruptedException {
        children.forEach(child -> child.process().destroyForcibly());
        for (Child child : children) {
            child.process().waitFor();
        }
    }

    /** Pass or fail, no child and no server of theirs outlives the test. */
    private static void stopAll(List<Child> children, Path home) throws Exception {
        killTogether(children);
        ProcFs.killAllIn(home);
    }

    /** The pid a pid file names when it is a whole line and the process lives; 0 otherwise. */
    private static long livePid(Path pidFile) {
        try {
            String text = Files.readString(pidFile);
            if (!text.matches("[0-9]+\\n")) {
                return 0;
            }
            long pid = Long.parseLong(text.strip());
            return alive(pid) ? pid : 0;
        } catch (java.io.IOException | NumberFormatException notYet) {
            return 0;
        }
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
