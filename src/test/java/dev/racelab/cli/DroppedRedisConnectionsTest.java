package dev.racelab.cli;

import dev.racelab.backend.RedisAddress;
import dev.racelab.support.TestServers;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.ClientKillParams;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Redis drops the connections of a run's workers mid-run ({@code CLIENT KILL}, as an administrator
 * or a proxy would), in every lab on Redis: the run ends ERROR, the command exits 1, and both the
 * summary and the line on standard error name Redis. A dropped subscriber ("wake-ups") connection ended the
 * run ERROR with exit 0 and no server named: the waiter's wait for a wake-up broke, and that was
 * not taken for the connection Redis broke.
 */
@Tag("lab")
@Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class DroppedRedisConnectionsTest {

    /**
     * In each lab on Redis, the run's workers' connections named {@code racelab:<run>:<role>-N…}
     * and ending in {@code which} ("": a worker's command and subscriber connections both) are dropped.
     */
    @ParameterizedTest
    @CsvSource({
        "dining-philosophers, waiter, philosopher, 5, :wake-ups, between-forks=5",
        "dining-philosophers, waiter, philosopher, 5, '', between-forks=5",
        "redis-primitives, article-mutex, client, 4, '', holder-crashes=0@client-2",
        "readers-writers, fair, client, 6, '', between-reads=5",
        "lease-fencing, fenced, client, 2, '', before-acquire=5"
    })
    void droppedConnectionsEndTheRunErrorExitOneNamingRedis(String lab, String strategy, String role, int workers,
                                                           String which, String delay) throws Exception {
        DuringRun.Result result = DuringRun.run(List.of("run", lab, "--strategy", strategy, "--ops", "100000",
                "--delay", delay, "--timeout", "30", "--json"), 5, run -> {
            String prefix = "racelab:" + run.id() + ":" + role + "-";
            try (Jedis test = TestServers.redis().open("test", 5_000)) {
                List<String> ids = test.clientList().lines().filter(line -> {
                    int at = line.indexOf(" name=") + 6;
                    String name = line.substring(at, line.indexOf(' ', at));
                    return name.startsWith(prefix) && name.endsWith(which);
                }).map(line -> line.substring(3, line.indexOf(' '))).toList();
                assertEquals(which.isEmpty() ? 2 * workers : workers, ids.size(), "the workers' connections: " + ids);
                for (String id : ids) {
                    test.clientKill(new ClientKillParams().id(id));
                }
            }
        }, Duration.ofSeconds(30));

        RedisAddress server = TestServers.redis().address();
        String named = "Redis at " + server.host() + ":" + server.port();
        assertEquals("ERROR", result.json().get("verdict").getAsString(), result.out());
        assertEquals(1, result.code(), "an ERROR is exit 1; stderr: " + result.err() + "; summary: " + result.out());
        assertTrue(result.json().get("explanation").getAsString().startsWith(named),
                result.json().get("explanation").getAsString());
        assertTrue(result.err().strip().startsWith("racelab: " + named), result.err());
    }
}
