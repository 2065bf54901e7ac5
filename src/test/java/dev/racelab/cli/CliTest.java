package dev.racelab.cli;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.racelab.backend.DataHome;
import dev.racelab.backend.PgAddress;
import dev.racelab.engine.Event;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.RunRecord;
import dev.racelab.labs.Labs;
import dev.racelab.record.Recording;
import dev.racelab.record.RecordingReader;
import dev.racelab.support.CuttableProxy;
import dev.racelab.support.PgProbe;
import dev.racelab.support.Poll;
import dev.racelab.support.TestServers;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The command-line contract (docs/shells.md, "The command line"), run in-process against the test servers. */
@Tag("lab")
class CliTest {

    private record Result(int code, String out, String err) {
        JsonObject json() {
            return JsonParser.parseString(out).getAsJsonObject();
        }

        List<String> errLines() {
            return err.isEmpty() ? List.of() : List.of(err.split("\n"));
        }
    }

    private static Result cli(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Map<String, String> env = TestServers.childEnvironment();
        int code = new Cli(env, DataHome.resolve(env), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8)).run(Arrays.asList(args));
        return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void listJsonDescribesEveryLabWithItsStrategiesGatesAndDefaults() {
        Result result = cli("list", "--json");
        assertEquals(0, result.code());
        JsonObject counter = result.json().getAsJsonArray("labs").get(0).getAsJsonObject();
        assertEquals("counter", counter.get("id").getAsString());
        assertEquals("read-modify-write", counter.get("defaultStrategy").getAsString());
        assertEquals(4, counter.getAsJsonArray("strategies").size());
        assertTrue(counter.getAsJsonArray("strategies").get(0).getAsJsonObject().get("broken").getAsBoolean());
        assertEquals("after-read", counter.getAsJsonArray("gates").get(1).getAsJsonObject().get("id").getAsString());
        assertEquals(4, counter.getAsJsonObject("defaults").get("workers").getAsInt());
        JsonObject fencing = result.json().getAsJsonArray("labs").get(1).getAsJsonObject();
        assertEquals("blind-write", fencing.get("defaultStrategy").getAsString());
    }

    @Test
    void aSweepRunsABatchAtEachDelayAndCountsTheVerdictsOfEach() {
        // Twenty increments each, 20 ms a pause: the two overlap unless the second client's
        // thread starts 400 ms after the first's (with three each, 60 ms late was enough to miss).
        Result result = cli("run", "counter", "--workers", "2", "--ops", "20", "--delay", "before-read=0",
                "--sweep", "after-read=0-20/10", "--runs", "2", "--json");
        assertEquals(0, result.code(), result.err());
        JsonObject json = result.json();
        assertEquals(6, json.get("runs").getAsInt(), "two runs at each of three delays");
        assertEquals(6, json.get("plannedRuns").getAsInt());
        JsonObject sweep = json.getAsJsonObject("sweep");
        assertEquals("after-read", sweep.get("gate").getAsString());
        assertEquals(List.of(0L, 10L, 20L), json.getAsJsonArray("points").asList().stream()
                .map(p -> p.getAsJsonObject().get("delay").getAsLong()).toList());
        for (var p : json.getAsJsonArray("points")) {
            JsonObject point = p.getAsJsonObject();
            assertEquals(2, point.get("runs").getAsInt(), point.toString());
            int counted = point.getAsJsonObject("verdicts").entrySet().stream().mapToInt(e -> e.getValue().getAsInt()).sum();
            assertEquals(2, counted, point.toString());
        }
        // Two clients that both pause 20 ms between reading and writing back always lose one.
        JsonObject longest = json.getAsJsonArray("points").get(2).getAsJsonObject();
        assertEquals(2, longest.get("failed").getAsInt(), longest.toString());
        assertEquals(2, longest.getAsJsonObject("verdicts").get("RACE").getAsInt(), longest.toString());
    }

    @Test
    void aSweepOfTheFixIsSafeAtEveryDelayAndPrintsItsTable() {
        Result result = cli("run", "counter", "--strategy", "atomic-update", "--workers", "2", "--ops", "3",
                "--delay", "before-read=0", "--sweep", "after-read=0-10/10", "--runs", "2");
        assertEquals(0, result.code(), result.err());
        assertTrue(result.out().contains("after-read=0 ms: 2 runs, 0 failed (0%): SAFE ×2"), result.out());
        assertTrue(result.out().contains("after-read=10 ms: 2 runs, 0 failed (0%): SAFE ×2"), result.out());
        assertTrue(result.out().contains("sweep after-read=0-10/10, 2 runs at each delay:"), result.out());
    }

    @Test
    void listJsonNamesEachLabsSwitchesAndItsFaultGates() {
        Result result = cli("list", "--json");
        assertEquals(0, result.code());
        JsonObject philosophers = lab(result, "dining-philosophers");
        JsonObject thinking = philosophers.getAsJsonArray("switches").get(0).getAsJsonObject();
        assertEquals("think-ms", thinking.get("name").getAsString());
        assertEquals("integer", thinking.get("type").getAsString());
        assertEquals("20", thinking.get("default").getAsString());
        assertEquals(1, thinking.get("min").getAsInt());
        assertEquals("ms", thinking.get("unit").getAsString());
        JsonObject primitives = lab(result, "redis-primitives");
        List<String> faults = new ArrayList<>();
        primitives.getAsJsonArray("gates").forEach(g -> {
            if (g.getAsJsonObject().get("kind").getAsString().equals("fault")) {
                faults.add(g.getAsJsonObject().get("id").getAsString());
            }
        });
        assertEquals(List.of("waiter-crashes", "waiter-vanishes", "waiter-gives-up", "holder-crashes",
                "release-repeated"), faults);
        assertEquals(0, lab(result, "counter").getAsJsonArray("switches").size());
    }

    private static JsonObject lab(Result list, String id) {
        for (var lab : list.json().getAsJsonArray("labs")) {
            if (lab.getAsJsonObject().get("id").getAsString().equals(id)) {
                return lab.getAsJsonObject();
            }
        }
        throw new AssertionError("no lab " + id);
    }

    @Test
    void aSwitchSetOnTheCommandLineReachesTheRunAndItsSummary() {
        Result result = cli("run", "dining-philosophers", "--strategy", "ordered", "--ops", "2", "--set",
                "think-ms=3", "--set", "eat-ms=2", "--json");
        assertEquals(0, result.code(), result.err());
        assertEquals("SAFE", result.json().get("verdict").getAsString());
        JsonObject switches = result.json().getAsJsonObject("switches");
        assertEquals("3", switches.get("think-ms").getAsString());
        assertEquals("2", switches.get("eat-ms").getAsString());
    }

    @Test
    void rerunRunsARecordingsSettingsAgainWithWhatTheCommandAdds(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("first.racelab");
        Result first = cli("run", "counter", "--workers", "3", "--ops", "7", "--delay", "after-read=1",
                "--record", file.toString(), "--json");
        assertEquals(0, first.code(), first.err());
        Result again = cli("rerun", file.toString(), "--strategy", "atomic-update", "--json");
        assertEquals(0, again.code(), again.err());
        assertEquals("counter", again.json().get("lab").getAsString());
        assertEquals(3, again.json().get("workers").getAsInt());
        assertEquals(7, again.json().get("ops").getAsInt());
        assertEquals("before-read=0-100 after-read=1", again.json().get("delays").getAsString(), "the preset pause stays");
        assertEquals("atomic-update", again.json().get("strategy").getAsString());
        assertEquals("SAFE", again.json().get("verdict").getAsString());
        assertEquals(21L, again.json().getAsJsonObject("metrics").get("finalValue").getAsLong());
    }

    @Test
    void replayPrintsExactlyWhatTheRunPrinted(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("race.racelab");
        Result text = cli("run", "fencing", "--strategy", "check-then-write", "--workers", "4", "--ops", "3",
                "--delay", "after-check=0-3", "--runs", "3", "--record", file.toString());
        assertEquals(0, text.code(), text.err());
        String summaryOnly = text.out().substring(text.out().indexOf("fencing · "));
        assertEquals(summaryOnly, cli("replay", file.toString()).out());
        Result json = cli("run", "fencing", "--workers", "3", "--ops", "2", "--record", file.toString(), "--force",
                "--json");
        assertEquals(json.json(), cli("replay", file.toString(), "--json").json(),
                "and the same JSON; a second recording to the same name, forced, replaced the first");
    }

    @Test
    void runJsonCarriesEveryFieldOfTheContract() {
        Result result = cli("run", "counter", "--workers", "4", "--ops", "20", "--delay", "after-read=2",
                "--runs", "2", "--json");
        assertEquals(0, result.code(), result.err());
        JsonObject json = result.json();
        for (String field : List.of("lab", "strategy", "workers", "runs", "verdict", "verdicts", "violations",
                "metrics", "events", "elapsedMs", "backend")) {
            assertTrue(json.has(field), "has " + field);
        }
        assertEquals("counter", json.get("lab").getAsString());
        assertEquals("read-modify-write", json.get("strategy").getAsString());
        assertEquals(4, json.get("workers").getAsInt());
        assertEquals(2, json.get("runs").getAsInt());
        assertEquals("RACE", json.get("verdict").getAsString());
        assertEquals(2, json.getAsJsonObject("verdicts").get("RACE").getAsInt());
        assertTrue(json.getAsJsonObject("violations").get("lost increments").getAsLong() > 0);
        assertEquals(80, json.getAsJsonObject("metrics").get("committedIncrements").getAsLong());
        assertTrue(json.get("events").getAsLong() > 0);
        assertTrue(json.getAsJsonObject("backend").get("postgres").getAsString().contains("PostgreSQL"));
        assertFalse(json.has("redis"), "a PostgreSQL lab does not start Redis");
    }

    @Test
    void theHumanSummaryNamesTheVerdictInWords() {
        Result result = cli("run", "counter", "--strategy", "atomic-update", "--workers", "3", "--ops", "10");
        assertEquals(0, result.code(), result.err());
        assertTrue(result.out().contains("SAFE — all 30 increments counted"), result.out());
    }

    @Test
    void jsonFalsePrintsTheSummaryNotJson() {
        Result result = cli("run", "counter", "--strategy", "atomic-update", "--workers", "2", "--ops", "3",
                "--json=false");
        assertEquals(0, result.code(), result.err());
        assertTrue(result.out().startsWith("counter · atomic-update · 2 clients × 3 ops · before-read=0-100 after-read=10-30\n"), result.out());
        assertTrue(result.out().contains("SAFE — all 6 increments counted"), result.out());
    }

    @Test
    void expectExitsThreeWhenTheVerdictDiffers() {
        assertEquals(0, cli("run", "counter", "--strategy", "atomic-update", "--workers", "2", "--ops", "5",
                "--expect", "SAFE").code());
        Result mismatch = cli("run", "counter", "--strategy", "atomic-update", "--workers", "2", "--ops", "5",
                "--expect", "race");
        assertEquals(3, mismatch.code());
        assertTrue(mismatch.err().contains("expected RACE in every run, got SAFE ×1"), mismatch.err());
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "run nope",
        "run counter --strategy nope",
        "run counter --delay nope=5",
        "run counter --delay after-read=fast",
        "run counter --delay after-read=20-2",
        "run counter --delay after-read",
        "run counter --delay after-read=5@client-9",
        "run counter --workers 0",
        "run counter --workers -3",
        "run counter --workers many",
        "run counter --ops 0",
        "run counter --runs 0",
        "run counter --timeout 0",
        "run counter --expect MAYBE",
        "run counter --bogus",
        "run counter --workers",
        "run counter --set nope=3",
        "run counter --set think-ms",
        "run dining-philosophers --set think-ms=fast",
        "run dining-philosophers --set think-ms=0",
        "run dining-philosophers --set eat-ms=99999",
        "run dining-philosophers --set hunger=5",
        "run redis-primitives --record /no/such/folder/run.racelab",
        "replay",
        "rerun",
        "run",
        "list --bogus",
        "bogus"
    })
    void badInputExitsTwoWithOneLineNamingTheProblem(String args) {
        Result result = cli(args.split(" "));
        assertEquals(2, result.code(), result.out() + result.err());
        assertEquals(1, result.errLines().size(), result.err());
        assertTrue(result.err().startsWith("racelab: "), result.err());
        assertFalse(result.err().contains("Exception"), result.err());
        assertTrue(result.out().isEmpty());
        String named = args.contains(" ") ? args.substring(args.lastIndexOf(' ') + 1).replaceFirst("=.*", "") : args;
        assertTrue(result.err().contains(named) || result.err().contains(named.replace("--", "")),
                "the message names '" + named + "': " + result.err());
    }

    @Test
    void anUnreachableServerExitsOneNamingTheServerAndNeverItsPassword() throws Exception {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        Result result = cli("run", "counter", "--pg-url", "postgresql://alice:hunter2@127.0.0.1:" + port + "/db",
                "--json");
        assertEquals(1, result.code());
        String named = "PostgreSQL at 127.0.0.1:" + port + " cannot be reached: connection refused";
        assertEquals(List.of("racelab: " + named), result.errLines());
        assertFalse(result.out().contains("hunter2") || result.err().contains("hunter2"));
        // --json: standard output carries the one JSON object all the same, the verdict ERROR and why.
        JsonObject json = result.json();
        assertEquals("ERROR", json.get("verdict").getAsString(), result.out());
        assertEquals(0, json.get("runs").getAsInt());
        assertEquals(named, json.get("serverFailure").getAsString());
        assertEquals(named, json.get("explanation").getAsString());
        assertEquals("counter", json.get("lab").getAsString());
    }

    @Test
    void recordSavesEveryRunCompleteAndNeverTheServersPassword(@TempDir Path dir) throws Exception {
        PgAddress real = TestServers.postgres().address();
        // A password the file must not contain: the server's own, or one a trusting server ignores.
        String secret = real.hasPassword() ? real.secretUrl().replaceAll("^.*://[^:]*:([^@]*)@.*$", "$1")
                : "hunter2-" + System.nanoTime();
        String url = real.hasPassword() ? real.secretUrl()
                : new PgAddress(real.host(), real.port(), real.database(), real.user(), secret, Map.of()).secretUrl();
        Path file = dir.resolve("run.racelab");
        Result result = cli("run", "fencing", "--workers", "3", "--ops", "2", "--runs", "2", "--record",
                file.toString(), "--pg-url", url, "--json");
        assertEquals(0, result.code(), result.err());

        Recording recording = new RecordingReader(new Labs(TestServers.backends()))
                .read(file);
        assertEquals(2, recording.runs().size());
        assertEquals(result.json().get("events").getAsLong(),
                recording.runs().stream().mapToLong(r -> r.events().size()).sum(), "every event of every run");
        RunRecord first = recording.runs().get(0);
        assertEquals("fencing", first.header().lab());
        assertEquals(3, first.header().spec().workers());
        assertEquals("client-3", first.events().snapshot().stream().filter(e -> e.kind() == EventKind.ACTOR)
                .map(Event::subject).toList().get(3), "the record names its lanes");
        Map<String, Integer> recorded = new java.util.TreeMap<>();
        recording.runs().forEach(r -> recorded.merge(r.outcome().verdict().name(), 1, Integer::sum));
        Map<String, Integer> printed = new java.util.TreeMap<>();
        result.json().getAsJsonObject("verdicts").entrySet().forEach(e -> printed.put(e.getKey(), e.getValue().getAsInt()));
        assertEquals(printed, recorded, "each run's verdict");
        assertFalse(Files.readString(file).contains(secret), "the password never reaches the file");
        try (var listing = Files.list(dir)) {
            assertEquals(List.of(file), listing.toList(), "nothing but the recording is left in the folder");
        }
    }

    @Test
    void aServerThatDiesDuringTheRunIsABackendFailureNamingTheServer() throws Exception {
        PgAddress real = TestServers.postgres().address();
        try (CuttableProxy proxy = new CuttableProxy(real.host(), real.port())) {
            String viaProxy = real.secretUrl().replace("@" + real.host() + ":" + real.port() + "/",
                    "@127.0.0.1:" + proxy.port() + "/");
            Cutter cutter = cutWhenEightClientsConnect(proxy);
            Result result = cli("run", "counter", "--pg-url", viaProxy, "--workers", "8", "--ops", "5000",
                    "--delay", "after-read=2",
                    "--json");
            cutter.join();
            assertEquals(1, result.code(), result.err());
            assertEquals("ERROR", result.json().get("verdict").getAsString(), "the summary still tells the run");
            assertTrue(result.err().startsWith("racelab: PostgreSQL at 127.0.0.1:" + proxy.port()), result.err());
        }
    }

    @Test
    void aServerThatDiesEndsTheBatchAtOnceAndTheSummarySaysHowManyOfTheRunsRan(@TempDir Path dir) throws Exception {
        PgAddress real = TestServers.postgres().address();
        Path file = dir.resolve("cut.racelab");
        try (CuttableProxy proxy = new CuttableProxy(real.host(), real.port())) {
            String viaProxy = real.secretUrl().replace("@" + real.host() + ":" + real.port() + "/",
                    "@127.0.0.1:" + proxy.port() + "/");
            Cutter cutter = cutWhenEightClientsConnect(proxy);
            Result result = cli("run", "counter", "--pg-url", viaProxy, "--workers", "8", "--ops", "5000",
                    "--delay", "after-read=2",
                    "--runs", "20", "--record", file.toString());
            cutter.join();
            String named = "PostgreSQL at 127.0.0.1:" + proxy.port();
            assertEquals(1, result.code(), result.err());
            assertTrue(result.out().contains("run 1/20: ERROR"), result.out());
            assertFalse(result.out().contains("run 2/20"), "no run after the server died: " + result.out());
            assertTrue(result.out().contains("\n1 of 20 runs: ERROR ×1\n"), result.out());
            assertTrue(result.out().contains("\na server failed: " + named), result.out());
            assertTrue(result.errLines().get(result.errLines().size() - 1).startsWith("racelab: " + named),
                    result.err());
            String summaryOnly = result.out().substring(result.out().indexOf("counter · "));
            assertEquals(summaryOnly, cli("replay", file.toString()).out(), "the recording tells the same");
            JsonObject json = cli("replay", file.toString(), "--json").json();
            assertEquals(1, json.get("runs").getAsInt());
            assertEquals(20, json.get("plannedRuns").getAsInt());
            assertTrue(json.get("serverFailure").getAsString().startsWith(named), json.toString());
        }
    }

    /**
     * Cuts {@code proxy} once eight clients of the run are connected through it (its own run's
     * clients, through this relay: other tests may share the server), on a thread of its own. It
     * cuts anyway when the wait gives up, so the run ends; {@link Cutter#join} then fails the test,
     * saying what never happened.
     */
    private static Cutter cutWhenEightClientsConnect(CuttableProxy proxy) {
        AtomicReference<String> gaveUp = new AtomicReference<>();
        Thread cutter = new Thread(() -> {
            try (PgProbe probe = new PgProbe()) {
                if (!Poll.eventually(Duration.ofSeconds(30),
                        () -> probe.sessionsNamed("client-", proxy.upstreamPorts()) >= 8)) {
                    gaveUp.set("never happened within 30 s: eight clients of the run connected through the relay "
                            + "(the connection was cut anyway)");
                }
            } catch (Exception e) {
                gaveUp.set("watching the relay's sessions failed (the connection was cut anyway): " + e);
            }
            proxy.cut();
        }, "test-cutter");
        cutter.start();
        return new Cutter(cutter, gaveUp);
    }

    /** The cutting thread, and why it cut without its condition, if it did. */
    private record Cutter(Thread thread, AtomicReference<String> gaveUp) {
        /** Waits for the cut; fails if it came only because the wait for the run's clients gave up. */
        void join() throws InterruptedException {
            thread.join();
            assertNull(gaveUp.get(), gaveUp::get);
        }
    }

    /**
     * A login of {@code role} on the test server, made for one test and dropped after it; {@code
     * grants} are given to it and revoked. Only on a test server where this suite's login may
     * create roles (the embedded one, or the external trust one).
     */
    private static void withLogin(String role, List<String> grants, LoginCheck check) throws Exception {
        try (java.sql.Connection admin = TestServers.connect(); java.sql.Statement s = admin.createStatement()) {
            s.execute("CREATE SCHEMA IF NOT EXISTS racelab");
            s.execute("CREATE ROLE " + role + " LOGIN");
            try {
                for (String grant : grants) {
                    s.execute("GRANT " + grant + " TO " + role);
                }
                PgAddress real = TestServers.postgres().address();
                check.run(new PgAddress(real.host(), real.port(), real.database(), role, null, Map.of()));
            } finally {
                for (String grant : grants) {
                    s.execute("REVOKE " + grant + " FROM " + role);
                }
                s.execute("DROP ROLE " + role);
            }
        }
    }

    /** A server that cannot be used ends the command before any run: --json says so in its one object. */
    private static void nothingRan(Result result) {
        assertEquals(0, result.json().get("runs").getAsInt(), result.out());
        assertEquals("ERROR", result.json().get("verdict").getAsString(), result.out());
        assertEquals(result.errLines().get(0), "racelab: " + result.json().get("serverFailure").getAsString());
    }

    private interface LoginCheck {
        void run(PgAddress login) throws Exception;
    }

    private static String testRole() {
        return "racelab_test_noschema_" + ProcessHandle.current().pid();
    }

    @Test
    void aLoginThatMayNotCreateTheSchemaIsAServerProblemNamingTheServer() throws Exception {
        withLogin(testRole(), List.of(), login -> {
            Result result = cli("run", "counter", "--pg-url", login.secretUrl(), "--json");
            assertEquals(1, result.code(), result.out() + result.err());
            assertEquals(1, result.errLines().size(), result.err());
            assertTrue(result.errLines().get(0).startsWith("racelab: PostgreSQL at " + login.host() + ":"
                    + login.port() + " does not let user '" + login.user() + "' create schema racelab: "
                    + "permission denied for database"), result.err());
            nothingRan(result);
        });
    }

    @Test
    void aLoginThatMayNotCreateTablesInSomeoneElsesSchemaIsAServerProblemNamingTheServer() throws Exception {
        String database = TestServers.postgres().address().database().replace("\"", "\"\"");
        withLogin(testRole(), List.of("CREATE ON DATABASE \"" + database + "\""), login -> {
            Result result = cli("run", "counter", "--pg-url", login.secretUrl(), "--json");
            assertEquals(1, result.code(), result.out() + result.err());
            assertEquals(1, result.errLines().size(), result.err());
            assertTrue(result.errLines().get(0).startsWith("racelab: PostgreSQL at " + login.host() + ":"
                    + login.port() + " does not let user '" + login.user() + "' create tables in schema racelab"),
                    result.err());
            assertTrue(result.errLines().get(0).contains("USAGE and CREATE"), result.err());
            nothingRan(result);
        });
    }
}
