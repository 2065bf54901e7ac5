package dev.racelab.cli;

import dev.racelab.backend.PgAddress;
import dev.racelab.backend.RedisAddress;
import dev.racelab.support.ProcFs;
import dev.racelab.support.TestServers;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.ClientKillParams;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A session the run holds for itself, not a worker's (the {@code racelab:setup} session a lab sets
 * up and judges with, idle while the workers work; an observer's; Redis's admin connection), ended
 * by an administrator mid-run: the run ends within a second or two, ERROR, naming the server and
 * the cause, exit 1, as when a worker's session ends. It went unnoticed until the run ended
 * (lease-fencing) or not at all (advisory-lock).
 */
@Tag("lab")
@Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class LostOwnSessionTest {

    /** From the session's end to the end of the command: a second or two, and room for a busy machine. */
    private static final Duration NOTICED_WITHIN = Duration.ofSeconds(8);

    private static final Map<String, List<String>> RUNS = Map.of(
            "lease-fencing", List.of("--ops", "100000", "--delay", "before-acquire=20"),
            "advisory-lock", List.of("--ops", "100000", "--delay", "before-lock=20"),
            "counter", List.of("--workers", "2", "--ops", "100000", "--delay", "after-read=20"),
            "readers-writers", List.of("--ops", "100000", "--delay", "between-reads=20"));

    @ParameterizedTest
    @ValueSource(strings = {"lease-fencing", "advisory-lock", "counter"})
    void terminatingTheRunsOwnIdleSessionEndsTheRunNamingTheServer(String lab) throws Exception {
        endedRunNames(lab, postgresNamed(), run -> terminate("racelab:setup"));
    }

    /** A recorded run observes: its observer's session is one of its own too. */
    @Test
    void terminatingARecordedRunsObserverSessionEndsTheRunNamingTheServer(@TempDir Path dir) throws Exception {
        endedRunNames("counter", postgresNamed(), run -> terminate("racelab:observer"),
                "--record", dir.resolve("observed.racelab").toString());
    }

    @Test
    void killingTheRunsOwnIdleRedisConnectionEndsTheRunNamingTheServer() throws Exception {
        RedisAddress server = TestServers.redis().address();
        endedRunNames("readers-writers", "Redis at " + server.host() + ":" + server.port() + " broke the connection",
                run -> {
                    String name = "racelab:" + run.id() + ":setup";
                    try (Jedis test = TestServers.redis().open("test", 5_000)) {
                        long killed = test.clientKill(new ClientKillParams().id(String.valueOf(clientId(test, name))));
                        assertEquals(1, killed, "the run's connection " + name + " killed");
                    }
                });
    }

    private static String postgresNamed() {
        PgAddress server = TestServers.postgres().address();
        return "PostgreSQL at " + server.host() + ":" + server.port() + " ended the session";
    }

    /**
     * Runs {@code lab} long, ends one of its own sessions with {@code end} once its workers are
     * well under way, and checks the command ended within the bound, ERROR, exit 1, the summary and
     * the last line on standard error beginning {@code named}.
     */
    private static void endedRunNames(String lab, String named, DuringRun.Action end, String... more) throws Exception {
        List<String> args = new ArrayList<>(List.of("run", lab, "--timeout", "60", "--json"));
        args.addAll(RUNS.get(lab));
        args.addAll(List.of(more));
        DuringRun.Result result = DuringRun.run(args, 10, end, NOTICED_WITHIN);
        assertEquals(1, result.code(), result.err());
        assertEquals("ERROR", result.json().get("verdict").getAsString(), result.out());
        String explanation = result.json().get("explanation").getAsString();
        assertTrue(explanation.startsWith(named), explanation);
        assertTrue(result.err().strip().endsWith(explanation), result.err());
        assertTrue(result.millisAfter() < NOTICED_WITHIN.toMillis(), "the command ended " + result.millisAfter()
                + " ms after the session did");
    }

    /**
     * Terminates this run's (first) session called {@code name}: one whose client is a socket of
     * this JVM (the command runs in it; other test JVMs may share the server).
     */
    private static void terminate(String name) throws Exception {
        Set<Integer> ours = ProcFs.localPorts(ProcessHandle.current().pid());
        List<Integer> found = new ArrayList<>();
        try (Connection test = TestServers.connect()) {
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
            try (PreparedStatement terminate = test.prepareStatement("SELECT pg_terminate_backend(?)")) {
                terminate.setInt(1, found.get(0));
                try (ResultSet rs = terminate.executeQuery()) {
                    assertTrue(rs.next() && rs.getBoolean(1), "backend " + found.get(0) + " terminated");
                }
            }
        }
    }

    /** The id of the client called {@code name} in Redis's client list. */
    private static long clientId(Jedis test, String name) {
        return test.clientList().lines().filter(line -> line.contains(" name=" + name + " ")).map(line ->
                Long.parseLong(line.substring(3, line.indexOf(' ')))).findFirst()
                .orElseThrow(() -> new AssertionError("no client " + name));
    }
}
