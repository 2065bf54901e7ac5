package dev.racelab.cli;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.racelab.backend.BackendSettings;
import dev.racelab.backend.DataHome;
import dev.racelab.backend.PgAddress;
import dev.racelab.engine.Run;
import dev.racelab.support.Poll;
import dev.racelab.support.ProcFs;
import dev.racelab.support.TestServers;
import dev.racelab.backend.RedisAddress;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.ClientKillParams;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A session the run holds for itself, not a worker's (the {@code racelab:setup} session a lab sets
 * up and judges with, idle while the workers work; Redis's admin connection), ended by an
 * administrator mid-run: the run ends within a second or two, ERROR, naming the server and the
 * cause, exit 1, as when a worker's session ends. It went unnoticed until the run ended
 * (lease-fencing) or not at all (advisory-lock).
 */
@Tag("lab")
@Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class LostOwnSessionTest {

    /** From the termination to the end of the command: a second or two, and room for a busy machine. */
    private static final long NOTICED_WITHIN_MILLIS = 8_000;

    private static final Map<String, List<String>> RUNS = Map.of(
            "lease-fencing", List.of("--ops", "100000", "--delay", "before-acquire=20"),
            "advisory-lock", List.of("--ops", "100000", "--delay", "before-lock=20"),
            "counter", List.of("--workers", "2", "--ops", "100000", "--delay", "after-read=20"),
            "readers-writers", List.of("--ops", "100000", "--delay", "between-reads=20"));

    /** What a test does to one of the run's own sessions; returns how the server is to be named. */
    @FunctionalInterface
    private interface EndOwnSession {
        String end(Run run) throws Exception;
    }

    @ParameterizedTest
    @ValueSource(strings = {"lease-fencing", "advisory-lock", "counter"})
    void terminatingTheRunsOwnIdleSessionEndsTheRunNamingTheServer(String lab) throws Exception {
        runAndEnd(lab, run -> {
            try (Connection test = TestServers.connect()) {
                int pid = ownSession(test, "racelab:setup");
                try (PreparedStatement terminate = test.prepareStatement("SELECT pg_terminate_backend(?)")) {
                    terminate.setInt(1, pid);
                    try (ResultSet rs = terminate.executeQuery()) {
                        assertTrue(rs.next() && rs.getBoolean(1), "backend " + pid + " terminated");
                    }
                }
            }
            PgAddress server = TestServers.postgres().address();
            return "PostgreSQL at " + server.host() + ":" + server.port() + " ended the session";
        });
    }

    /** A recorded run observes: its observer's session is one of its own too. */
    @Test
    void terminatingARecordedRunsObserverSessionEndsTheRunNamingTheServer(@TempDir Path dir) throws Exception {
        runAndEnd("counter", run -> {
            try (Connection test = TestServers.connect()) {
                int pid = ownSession(test, "racelab:observer");
                try (PreparedStatement terminate = test.prepareStatement("SELECT pg_terminate_backend(?)")) {
                    terminate.setInt(1, pid);
                    try (ResultSet rs = terminate.executeQuery()) {
                        assertTrue(rs.next() && rs.getBoolean(1), "backend " + pid + " terminated");
                    }
                }
            }
            PgAddress server = TestServers.postgres().address();
            return "PostgreSQL at " + server.host() + ":" + server.port() + " ended the session";
        }, "--record", dir.resolve("observed.racelab").toString());
    }

    @Test
    void killingTheRunsOwnIdleRedisConnectionEndsTheRunNamingTheServer() throws Exception {
        runAndEnd("readers-writers", run -> {
            String name = "racelab:" + run.id() + ":setup";
            try (Jedis test = TestServers.redis().open("test", 5_000)) {
                long killed = test.clientKill(new ClientKillParams().id(String.valueOf(clientId(test, name))));
                assertEquals(1, killed, "the run's connection " + name + " killed");
            }
            RedisAddress server = TestServers.redis().address();
            return "Redis at " + server.host() + ":" + server.port() + " broke the connection";
        });
    }

    /**
     * Runs {@code lab} long from the command line, in this JVM, ends one of its own sessions with
     * {@code ender} once its workers are well under way, and checks the command ended within the
     * bound, ERROR, exit 1, naming the server as {@code ender} says.
     */
    private static void runAndEnd(String lab, EndOwnSession ender, String... more) throws Exception {
        AtomicReference<Run> running = new AtomicReference<>();
        AtomicReference<Throwable> trouble = new AtomicReference<>();
        AtomicReference<String> named = new AtomicReference<>();
        AtomicLong endedAt = new AtomicLong();
        Thread terminator = new Thread(() -> {
            Run run = null;
            try {
                Poll.until("the run starts", () -> running.get() != null);
                run = running.get();
                Run started = run;
                Poll.until("the workers well under way", () -> started.opsCompleted() >= 10);
                named.set(ender.end(run));
                endedAt.set(System.nanoTime());
                if (!Poll.eventually(java.time.Duration.ofMillis(NOTICED_WITHIN_MILLIS), started.outcome()::isDone)) {
                    trouble.set(new AssertionError("the run went on " + NOTICED_WITHIN_MILLIS
                            + " ms after its own session ended"));
                    run.stop();
                }
            } catch (Throwable e) {
                trouble.set(e);
                if (run != null) {
                    run.stop();
                }
            }
        }, "test-terminator");
        terminator.start();
        List<String> args = new ArrayList<>(List.of("run", lab, "--timeout", "60", "--json"));
        args.addAll(RUNS.get(lab));
        args.addAll(List.of(more));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Map<String, String> env = new HashMap<>(TestServers.childEnvironment());
        env.put(BackendSettings.REDIS_ENV, TestServers.redis().address().secretUrl());
        int code;
        try {
            code = new Cli(env, DataHome.resolve(env), new PrintStream(out, true, StandardCharsets.UTF_8),
                    new PrintStream(err, true, StandardCharsets.UTF_8)).watching(running::set).run(args);
        } finally {
            terminator.join();
        }
        long ms = (System.nanoTime() - endedAt.get()) / 1_000_000;
        assertNull(trouble.get(), () -> "ending the run's own session: " + trouble.get());

        JsonObject json = JsonParser.parseString(out.toString(StandardCharsets.UTF_8)).getAsJsonObject();
        String stderr = err.toString(StandardCharsets.UTF_8);
        assertEquals(1, code, stderr);
        assertEquals("ERROR", json.get("verdict").getAsString(), json.toString());
        assertTrue(json.get("explanation").getAsString().startsWith(named.get()), json.get("explanation").getAsString());
        assertTrue(stderr.strip().endsWith(json.get("explanation").getAsString()), stderr);
        assertTrue(ms < NOTICED_WITHIN_MILLIS, "the command ended " + ms + " ms after the session did");
    }

    /** The id of the client called {@code name} in Redis's client list. */
    private static long clientId(Jedis test, String name) {
        return test.clientList().lines().filter(line -> line.contains(" name=" + name + " ")).map(line ->
                Long.parseLong(line.substring(3, line.indexOf(' ')))).findFirst()
                .orElseThrow(() -> new AssertionError("no client " + name));
    }

    /**
     * The backend of this run's (first) session called {@code name}: one whose client is a socket of
     * this JVM (the command runs in it; other test JVMs may share the server).
     */
    private static int ownSession(Connection test, String name) throws Exception {
        Set<Integer> ours = ProcFs.localPorts(ProcessHandle.current().pid());
        List<Integer> found = new ArrayList<>();
        try (PreparedStatement ps = test.prepareStatement(
                "SELECT pid, client_port FROM pg_stat_activity WHERE application_name = ?")) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    if (ours.contains(rs.getInt(2))) {
                        found.add(rs.getInt(1));
                    }
                }
            }
        }
        // One setup session; one observer's session per observer (the counter has two: locks, the row).
        assertTrue(!found.isEmpty() && (found.size() == 1 || name.endsWith("observer")),
                "this run's " + name + " session, by its client port: " + found);
        return found.get(0);
    }
}
