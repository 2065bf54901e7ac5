package dev.racelab.it;

import dev.racelab.backend.BackendSettings;
import dev.racelab.backend.Redis;
import dev.racelab.engine.Clock;
import dev.racelab.engine.GatePlan;
import dev.racelab.engine.GateRule;
import dev.racelab.engine.Outcome;
import dev.racelab.engine.Run;
import dev.racelab.engine.RunSpec;
import dev.racelab.engine.Verdict;
import dev.racelab.labs.primitives.PrimitivesLab;
import dev.racelab.labs.redis.sync.LiveRuns;
import dev.racelab.support.Child;
import dev.racelab.support.Poll;
import dev.racelab.support.ProcFs;
import dev.racelab.support.TestServers;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.params.ZAddParams;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A RaceLab killed outright mid-run leaves its run's keys in Redis (nothing of it runs to delete
 * them). Once the killed run's lifetime has passed with nobody renewing it, the next run to open
 * on that server deletes them, and nothing else: not a live run's keys, nor a key outside
 * {@code racelab:}. On the test servers, so with an external Redis shared with others too.
 */
@Tag("it")
class LeftoverKeysIT {

    @TempDir
    Path home;

    @Test
    void theKeysOfAKilledRunGoWithTheNextRunAndNothingElseDoes() throws Exception {
        Redis redis = TestServers.redis();
        PrimitivesLab lab = new PrimitivesLab(TestServers.backends());
        String sentinel = "sentinel:leftover-keys:" + UUID.randomUUID();
        Run live = new Run(lab, lab.defaults().withOps(100_000).withTimeout(Duration.ofMinutes(5))
                .withGates(GatePlan.NONE.with("in-critical-section", GateRule.fixed(20))), Clock.system());
        Child child = null;
        String killed = null;
        try (Jedis jedis = redis.open("test:leftover-keys", 10_000)) {
            jedis.set(sentinel, "keep");
            live.start();
            Poll.until("the live run has keys", () -> !keysOf(jedis, live.id()).isEmpty());
            Set<String> liveStrings = new TreeSet<>();
            for (String key : keysOf(jedis, live.id())) {
                if (jedis.type(key).equals("string")) {
                    liveStrings.add(key);  // Set up once and kept all run (a semaphore's counter).
                }
            }
            assertFalse(liveStrings.isEmpty(), "the live run keeps a counter");

            child = Child.jar(Map.of("RACELAB_HOME", home.toString(),
                            BackendSettings.REDIS_ENV, redis.address().secretUrl()),
                    "run", "redis-primitives", "--workers", "2", "--ops", "100000", "--delay", "in-critical-section=20", "--delay", "holder-crashes=0@client-2");
            long childPid = child.process().pid();
            AtomicReference<String> found = new AtomicReference<>();
            assertTrue(Poll.eventually(Duration.ofSeconds(90), () -> {
                runOfProcess(jedis, childPid).filter(run -> !keysOf(jedis, run).isEmpty()).ifPresent(found::set);
                return found.get() != null;
            }), "the child's run has keys");
            killed = found.get();
            assertNotEquals(live.id(), killed);
            child.process().destroyForcibly();
            child.process().waitFor();
            Set<String> left = keysOf(jedis, killed);
            assertFalse(left.isEmpty(), "killed, the RaceLab deleted nothing");

            // Nothing renews a killed run: one lifetime later its deadline has passed. The test
            // lets that lifetime pass on the registry's clock instead of waiting a minute.
            Double deadline = jedis.zscore(LiveRuns.REGISTRY, killed);
            if (deadline != null) {
                jedis.zadd(LiveRuns.REGISTRY, deadline - LiveRuns.LIFETIME.toMillis(), killed, ZAddParams.zAddParams().xx());
            }

            Run next = new Run(lab, lab.defaults().withOps(2), Clock.system());
            next.start();
            Outcome nextOutcome = next.awaitOutcome(Duration.ofSeconds(60));
            assertNotEquals(Verdict.ERROR, nextOutcome.verdict(), nextOutcome.explanation());

            assertEquals(Set.of(), keysOf(jedis, killed), "the killed run's keys are gone (they were " + left + ")");
            assertEquals(null, jedis.zscore(LiveRuns.REGISTRY, killed), "and so is its entry among the live runs");
            Set<String> stillThere = new TreeSet<>(liveStrings);
            stillThere.removeIf(key -> !jedis.exists(key));
            assertEquals(liveStrings, stillThere, "the live run's keys are untouched");
            assertTrue(jedis.zscore(LiveRuns.REGISTRY, live.id()) != null, "the live run is still registered");
            assertEquals("keep", jedis.get(sentinel), "a key outside racelab: is untouched");

            live.stop();
            Outcome outcome = live.awaitOutcome(Duration.ofSeconds(60));
            assertNotEquals(Verdict.ERROR, outcome.verdict(), "the live run went on undisturbed: " + outcome.explanation());
            assertEquals(Set.of(), keysOf(jedis, live.id()), "and leaves no key when it ends");
        } finally {
            live.stop();
            if (child != null) {
                child.process().destroyForcibly();
                child.process().waitFor();
            }
            ProcFs.killAllIn(home);
            try (Jedis jedis = redis.open("test:leftover-keys", 10_000)) {
                jedis.del(sentinel);
                if (killed != null) {
                    // Only if the test failed before the sweep: the child's keys are this test's to remove.
                    keysOf(jedis, killed).forEach(jedis::del);
                    jedis.zrem(LiveRuns.REGISTRY, killed);
                }
            }
        }
    }

    private static Set<String> keysOf(Jedis jedis, String run) {
        Set<String> keys = new HashSet<>();
        ScanParams match = new ScanParams().match(Redis.KEY_PREFIX + run + ":*").count(1_000);
        String cursor = ScanParams.SCAN_POINTER_START;
        do {
            var page = jedis.scan(cursor, match);
            keys.addAll(page.getResult());
            cursor = page.getCursor();
        } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
        return keys;
    }

    /**
     * The run whose connections process {@code pid} holds: a connection in the server's client list
     * is the process's when its address is one of the process's own sockets. Other RaceLabs may
     * share the server; only this one's runs count.
     */
    private static Optional<String> runOfProcess(Jedis jedis, long pid) throws Exception {
        Set<Integer> ports = ProcFs.localPorts(pid);
        for (String client : List.of(jedis.clientList().split("\n"))) {
            String addr = field(client, "addr");
            String name = field(client, "name");
            if (addr == null || name == null || !name.startsWith(Redis.KEY_PREFIX)) {
                continue;
            }
            int port = Integer.parseInt(addr.substring(addr.lastIndexOf(':') + 1));
            String[] parts = name.split(":");
            if (ports.contains(port) && parts.length >= 3) {
                return Optional.of(parts[1]);
            }
        }
        return Optional.empty();
    }

    private static String field(String clientLine, String name) {
        for (String field : clientLine.split(" ")) {
            if (field.startsWith(name + "=")) {
                return field.substring(name.length() + 1);
            }
        }
        return null;
    }
}
