package dev.racelab.cli;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.racelab.backend.DataHome;
import dev.racelab.backend.PgAddress;
import dev.racelab.engine.Event;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.Run;
import dev.racelab.support.Poll;
import dev.racelab.support.TestServers;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

/**
 * PostgreSQL ends the session of one of a run's workers mid-run: its backend killed outright (the
 * server then restarts every backend itself, so a probe afterwards finds it well) or terminated
 * by an administrator. The run ends ERROR naming the server and the cause, as a server failure:
 * the command prints the summary, then one line naming the server, and exits 1.
 *
 * <p>The worker is known to be mid-run when its session ends: it has done operations and has
 * a hundred thousand to go, each waiting 20 ms at a gate.
 */
@Tag("lab")
@Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class LostSessionTest {

    private record Result(int code, String out, String err) {
        JsonObject json() {
            return JsonParser.parseString(out).getAsJsonObject();
        }

        List<String> errLines() {
            return err.isBlank() ? List.of() : List.of(err.strip().split("\n"));
        }
    }

    /** What a test does to the backend serving {@code pid}, from a session of its own. */
    @FunctionalInterface
    private interface EndSession {
        void end(Connection test, int pid) throws Exception;
    }

    @Test
    void aWorkersBackendKilledOutrightEndsTheRunAsAServerFailure() throws Exception {
        assumeFalse(TestServers.external(), "kill -9 crashes the whole server: only the embedded one, never a shared one");
        Result result = runAndEndSessionOfClient1((test, pid) -> {
            ProcessHandle backend = ProcessHandle.of(pid).orElseThrow(() -> new AssertionError("no backend " + pid));
            assertTrue(backend.info().command().orElse("").endsWith("/postgres"),
                    "pid " + pid + " is a PostgreSQL backend: " + backend.info().command());
            assertTrue(backend.destroyForcibly(), "SIGKILL sent to backend " + pid);
        });
        assertServerFailure(result);
        // PostgreSQL has restarted itself: the failure is the run's, not a dead server found afterwards.
        Poll.until("PostgreSQL accepts sessions again", LostSessionTest::answers);
    }

    @Test
    void aWorkersBackendTerminatedByAnAdministratorEndsTheRunAsAServerFailure() throws Exception {
        Result result = runAndEndSessionOfClient1((test, pid) -> {
            try (PreparedStatement terminate = test.prepareStatement("SELECT pg_terminate_backend(?)")) {
                terminate.setInt(1, pid);
                try (ResultSet rs = terminate.executeQuery()) {
                    assertTrue(rs.next() && rs.getBoolean(1), "backend " + pid + " terminated");
                }
            }
        });
        assertServerFailure(result);
        String explanation = result.json().get("explanation").getAsString();
        assertTrue(explanation.contains("ended the session") || explanation.contains("lost the session"),
                explanation);
    }

    private static void assertServerFailure(Result result) {
        PgAddress server = TestServers.postgres().address();
        String named = "PostgreSQL at " + server.host() + ":" + server.port();
        assertEquals(1, result.code(), "a server failure; stderr: " + result.err());
        assertEquals("ERROR", result.json().get("verdict").getAsString(), "the summary still tells the run");
        String explanation = result.json().get("explanation").getAsString();
        assertTrue(explanation.startsWith(named + " "), explanation);
        assertEquals(List.of("racelab: " + explanation), result.errLines(), "one line naming the server and the cause");
    }

    /**
     * Runs the counter lab from the command line, in this JVM, and once client-1 is well under way
     * ends its session with {@code endSession}; if that fails, stops the run so the command ends.
     */
    private static Result runAndEndSessionOfClient1(EndSession endSession) throws Exception {
        AtomicReference<Run> running = new AtomicReference<>();
        AtomicReference<Throwable> trouble = new AtomicReference<>();
        Thread ender = new Thread(() -> {
            Run run = null;
            try {
                Poll.until("the run starts", () -> running.get() != null);
                run = running.get();
                Run started = run;
                Poll.until("both workers connected and client-1 well under way",
                        () -> pidOf(started, "client-1").isPresent() && pidOf(started, "client-2").isPresent()
                                && started.opsCompleted() >= 10);
                int pid = pidOf(run, "client-1").orElseThrow();
                try (Connection test = TestServers.connect()) {
                    assertEquals("racelab:client-1", applicationName(test, pid), "backend " + pid + " is client-1's");
                    endSession.end(test, pid);
                }
            } catch (Throwable e) {
                trouble.set(e);
                if (run != null) {
                    run.stop();
                }
            }
        }, "test-session-ender");
        ender.start();
        Result result;
        try {
            result = cli(running::set, "run", "counter", "--workers", "2", "--ops", "100000",
                    "--delay", "after-read=20", "--timeout", "60", "--json");
        } finally {
            ender.join();
        }
        assertNull(trouble.get(), () -> "ending the session failed: " + trouble.get());
        return result;
    }

    /** The backend pid worker {@code name} connected with, from its CONNECTED event. */
    private static Optional<Integer> pidOf(Run run, String name) {
        for (Event event : run.recorder().snapshot()) {
            if (event.kind() == EventKind.CONNECTED && name.equals(event.subject())) {
                return Optional.of((int) event.value());
            }
        }
        return Optional.empty();
    }

    private static String applicationName(Connection test, int pid) throws Exception {
        try (PreparedStatement ps = test.prepareStatement("SELECT application_name FROM pg_stat_activity WHERE pid = ?")) {
            ps.setInt(1, pid);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getString(1) : null;
            }
        }
    }

    private static boolean answers() {
        try (Connection c = TestServers.connect(); Statement s = c.createStatement()) {
            return s.execute("SELECT 1");
        } catch (Exception notYet) {
            return false;
        }
    }

    private static Result cli(java.util.function.Consumer<Run> watcher, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Map<String, String> env = TestServers.childEnvironment();
        int code = new Cli(env, DataHome.resolve(env), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8)).watching(watcher).run(Arrays.asList(args));
        return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }
}
