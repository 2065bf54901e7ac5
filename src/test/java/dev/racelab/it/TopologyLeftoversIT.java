package dev.racelab.it;

import dev.racelab.support.Child;
import dev.racelab.support.Children;
import dev.racelab.support.Poll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The replication labs' own servers outlive no RaceLab: killed with SIGKILL in the middle of a
 * failover (or of a stalled replay), the RaceLab's watchmen stop its Sentinels, its Redis servers,
 * its primary and its standby; the next RaceLab starts them anew and runs, and leaves nothing when
 * it exits. (The relays are threads of the RaceLab: they go with it.)
 */
@Tag("it")
class TopologyLeftoversIT {

    private static final List<String> REDIS = List.of("redis-a", "redis-b", "sentinel-1", "sentinel-2", "sentinel-3");

    private final Children children = new Children();

    /** One data home for both tests: the embedded binaries are unpacked once. */
    @TempDir
    static Path home;

    @AfterEach
    void stopChildren() {
        children.close();
    }

    @Test
    void aRaceLabKilledMidFailoverLeavesNoRedisOrSentinelRunning() throws Exception {
        Map<String, String> env = Map.of("RACELAB_HOME", home.toString());
        Path slot = home.resolve("redis-sentinel/slot-0");
        Child first = children.jar(env, "run", "redis-failover", "--runs", "3");
        assertTrue(Poll.eventually(Duration.ofSeconds(120), () -> REDIS.stream().allMatch(n -> livePid(slot, n) > 0)),
                "the topology started");
        List<Long> pids = new ArrayList<>();
        REDIS.forEach(n -> pids.add(livePid(slot, n)));
        // The lab kills the primary (redis-a) right after client-1's lock: the failover has begun.
        assertTrue(Poll.eventually(Duration.ofSeconds(60), () -> !alive(pids.get(0))), "the primary was killed");
        first.process().destroyForcibly().waitFor();
        for (long pid : pids) {
            assertTrue(Poll.eventually(Duration.ofSeconds(20), () -> !alive(pid)),
                    "process " + pid + " of the killed RaceLab's topology stopped");
        }

        Child second = children.jar(env, "run", "redis-failover", "--json");
        assertEquals(0, second.await(180), second.err());
        assertTrue(second.out().contains("\"verdict\": \"RACE\""), second.out());
        for (String name : REDIS) {
            assertTrue(Poll.eventually(Duration.ofSeconds(10), () -> livePid(slot, name) < 0),
                    name + " stopped when the second RaceLab exited");
        }
    }

    @Test
    void aRaceLabKilledMidRunLeavesNoPrimaryOrStandbyRunning() throws Exception {
        Map<String, String> env = Map.of("RACELAB_HOME", home.toString());
        Path slot = home.resolve("postgres-standby/slot-0");
        Child first = children.jar(env, "run", "replica-read", "--ops", "1000", "--set", "stall-ms=200");
        assertTrue(Poll.eventually(Duration.ofSeconds(120), () -> postmaster(slot, "primary") > 0
                && postmaster(slot, "standby") > 0), "the primary and the standby started");
        long primary = postmaster(slot, "primary");
        long standby = postmaster(slot, "standby");
        assertTrue(Poll.eventually(Duration.ofSeconds(60), () -> runRows(slot) > 0), "the run is under way");
        first.process().destroyForcibly().waitFor();
        assertTrue(Poll.eventually(Duration.ofSeconds(30), () -> !alive(primary) && !alive(standby)),
                "the killed RaceLab's primary and standby stopped");

        Child second = children.jar(env, "run", "replica-read", "--json");
        assertEquals(0, second.await(120), second.err());
        assertTrue(second.out().contains("\"verdict\": \"RACE\""), second.out());
        assertTrue(Poll.eventually(Duration.ofSeconds(10), () -> postmaster(slot, "primary") < 0
                && postmaster(slot, "standby") < 0), "nothing left when the second RaceLab exited");
    }

    /** How many rows of replica-read's runs the primary holds; 0 while it has none, or does not answer. */
    private static long runRows(Path slot) {
        try {
            String port = Files.readAllLines(slot.resolve("primary/postmaster.pid")).get(3).strip();
            try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port + "/postgres",
                    "postgres", "");
                 Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT count(*) FROM racelab.replica_rows")) {
                rs.next();
                return rs.getLong(1);
            }
        } catch (Exception notYet) {
            return 0;
        }
    }

    private static long livePid(Path slot, String name) {
        return pid(slot.resolve(name).resolve("redis.pid"));
    }

    private static long postmaster(Path slot, String server) {
        return pid(slot.resolve(server).resolve("postmaster.pid"));
    }

    /** The live process a pid file names, or -1. */
    private static long pid(Path file) {
        try {
            long pid = Long.parseLong(Files.readAllLines(file).get(0).strip());
            return alive(pid) ? pid : -1;
        } catch (Exception e) {
            return -1;
        }
    }

    private static boolean alive(long pid) {
        Optional<ProcessHandle> p = ProcessHandle.of(pid);
        return p.isPresent() && p.get().isAlive();
    }
}
