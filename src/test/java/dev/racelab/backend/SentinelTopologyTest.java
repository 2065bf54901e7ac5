package dev.racelab.backend;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.SetParams;

import java.net.InetAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * RaceLab's Redis with Sentinels, on real processes: a key set while the relays hold the replica's
 * stream is lost when the primary is killed and Sentinel promotes the replica, within seconds; a
 * key set while the stream flows survives; healed, the killed server is a replica again and the
 * next failover goes the other way; closing leaves no process and nothing listening.
 */
@Tag("lab")
class SentinelTopologyTest {

    @TempDir
    Path home;

    @Test
    void aKeyTheRelayHeldIsLostInAFailoverAndOneReplicatedSurvives() throws Exception {
        List<ProcessHandle> processes = new ArrayList<>();
        List<Integer> ports = new ArrayList<>();
        long started = System.nanoTime();
        try (Backends backends = new Backends(BackendSettings.embedded(), home, StartupListener.SILENT)) {
            SentinelTopology topology = backends.sentinels();
            System.out.printf("topology up in %d ms%n", (System.nanoTime() - started) / 1_000_000);
            for (int round = 0; round < 2; round++) {
                int primary = topology.primary();
                assertTrue(primary >= 0, "the Sentinels name a primary");
                RedisAddress at = topology.address(primary);
                try (Jedis jedis = new Jedis(at.host(), at.port(), 2000)) {
                    jedis.set("racelab:test:kept" + round, "1");
                    assertEquals(1, jedis.waitReplicas(1, 2000), "the replica acknowledged the first key");
                    topology.holdReplication();
                    assertEquals("OK", jedis.set("racelab:test:lock" + round, "client-1", SetParams.setParams().nx()));
                    assertEquals(0, jedis.waitReplicas(1, 200), "a held stream acknowledges nothing");
                }
                long fault = System.nanoTime();
                topology.kill(primary);
                int promoted = topology.awaitPrimaryOtherThan(primary, Duration.ofSeconds(15), () -> false);
                long failoverMs = (System.nanoTime() - fault) / 1_000_000;
                System.out.printf("round %d: %s promoted %d ms after the kill%n", round,
                        topology.serverNames().get(promoted), failoverMs);
                assertNotEquals(primary, promoted, "Sentinel promoted the replica");
                RedisAddress now = topology.address(promoted);
                try (Jedis jedis = new Jedis(now.host(), now.port(), 2000)) {
                    assertEquals("1", jedis.get("racelab:test:kept" + round), "what reached the replica survived");
                    assertNull(jedis.get("racelab:test:lock" + round), "what the relay held is lost");
                    assertEquals("OK", jedis.set("racelab:test:lock" + round, "client-2", SetParams.setParams().nx()),
                            "a second client takes the same lock");
                }
                long healing = System.nanoTime();
                topology.heal(Duration.ofSeconds(30), () -> false);
                System.out.printf("round %d: whole again %d ms later%n", round, (System.nanoTime() - healing) / 1_000_000);
                assertTrue(topology.alive(primary), "the killed server is back");
            }
            for (String name : List.of("redis-a", "redis-b", "sentinel-1", "sentinel-2", "sentinel-3")) {
                Path pid = home.resolve("redis-sentinel/slot-0").resolve(name).resolve("redis.pid");
                processes.add(ProcessHandle.of(Long.parseLong(Files.readString(pid).strip())).orElseThrow());
            }
            ports.add(topology.address(0).port());
            ports.add(topology.address(1).port());
        }
        for (ProcessHandle p : processes) {
            assertFalse(p.isAlive(), "process " + p.pid() + " stopped");
        }
        for (int port : ports) {
            try (Socket ignored = new Socket(InetAddress.getLoopbackAddress(), port)) {
                throw new AssertionError("something still listens on relay port " + port);
            } catch (java.io.IOException expected) {
                // Nothing listens.
            }
        }
    }
}
