package dev.racelab.cli;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.racelab.backend.BackendSettings;
import dev.racelab.backend.DataHome;
import dev.racelab.backend.RedisAddress;
import dev.racelab.engine.Run;
import dev.racelab.support.Poll;
import dev.racelab.support.TestServers;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.ClientKillParams;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
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
        AtomicReference<Run> running = new AtomicReference<>();
        AtomicReference<Throwable> trouble = new AtomicReference<>();
        Thread dropper = new Thread(() -> {
            Run run = null;
            try {
                Poll.until("the run starts", () -> running.get() != null);
                run = running.get();
                Run started = run;
                Poll.until("the workers at work", () -> started.opsCompleted() >= 5);
                String prefix = "racelab:" + run.id() + ":" + role + "-";
                try (Jedis test = TestServers.redis().open("test", 5_000)) {
                    List<String> ids = test.clientList().lines().filter(line -> {
                        String name = line.substring(line.indexOf(" name=") + 6, line.indexOf(' ', line.indexOf(" name=") + 6));
                        return name.startsWith(prefix) && name.endsWith(which);
                    }).map(line -> line.substring(3, line.indexOf(' '))).toList();
                    assertEquals(which.isEmpty() ? 2 * workers : workers, ids.size(), "the workers' connections: " + ids);
                    for (String id : ids) {
                        test.clientKill(new ClientKillParams().id(id));
                    }
                }
            } catch (Throwable e) {
                trouble.set(e);
                if (run != null) {
                    run.stop();
                }
            }
        }, "test-dropper");
        dropper.start();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Map<String, String> env = new HashMap<>(TestServers.childEnvironment());
        env.put(BackendSettings.REDIS_ENV, TestServers.redis().address().secretUrl());
        int code;
        try {
            code = new Cli(env, DataHome.resolve(env), new PrintStream(out, true, StandardCharsets.UTF_8),
                    new PrintStream(err, true, StandardCharsets.UTF_8)).watching(running::set).run(List.of("run",
                    lab, "--strategy", strategy, "--ops", "100000", "--delay", delay, "--timeout", "30", "--json"));
        } finally {
            dropper.join();
        }
        assertNull(trouble.get(), () -> "dropping the connections: " + trouble.get());

        RedisAddress server = TestServers.redis().address();
        String named = "Redis at " + server.host() + ":" + server.port();
        JsonObject json = JsonParser.parseString(out.toString(StandardCharsets.UTF_8)).getAsJsonObject();
        String stderr = err.toString(StandardCharsets.UTF_8);
        assertEquals("ERROR", json.get("verdict").getAsString(), json.toString());
        assertEquals(1, code, "an ERROR is exit 1; stderr: " + stderr + "; summary: " + json);
        assertTrue(json.get("explanation").getAsString().startsWith(named), json.get("explanation").getAsString());
        assertTrue(stderr.strip().startsWith("racelab: " + named), stderr);
    }
}
