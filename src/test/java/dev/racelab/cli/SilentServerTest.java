package dev.racelab.cli;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.racelab.backend.DataHome;
import dev.racelab.backend.PgAddress;
import dev.racelab.backend.Redis;
import dev.racelab.backend.RedisAddress;
import dev.racelab.engine.EventKind;
import dev.racelab.labs.Labs;
import dev.racelab.record.Recording;
import dev.racelab.record.RecordingReader;
import dev.racelab.support.CuttableProxy;
import dev.racelab.support.PgProbe;
import dev.racelab.support.Poll;
import dev.racelab.support.TestServers;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisConnectionException;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A server that accepts connections and then never answers (stopped with SIGSTOP, or a network
 * path gone dead), played by a proxy that stops forwarding but keeps every connection open. The
 * command ends, within its timeout and a few seconds, with the run's verdict ERROR, the server
 * named, exit 1, and the recording complete; it never hangs.
 *
 * <p>Slow by nature: a silent server is only known silent once RaceLab's bounds on waiting for it
 * (the run's timeout, ten seconds for its own sessions) have run out.
 */
@Tag("lab")
@Tag("slow")
@Execution(ExecutionMode.CONCURRENT) // it waits out bounds: beside the other tests, one of its own at a time
@Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)  // a hang is a failure, not a stuck build
class SilentServerTest {

    /** The run's timeout, and what the command may take beyond it to find and name a silent server. */
    private static final int TIMEOUT_SECONDS = 2;
    private static final long BOUND_MILLIS = (TIMEOUT_SECONDS + 20) * 1_000L;

    @TempDir
    Path dir;

    /** What the command did; {@code endedNanos} on {@link System#nanoTime}'s clock, for bounds counted from a freeze. */
    private record Result(int code, String out, String err, long millis, long endedNanos) {
        JsonObject json() {
            return JsonParser.parseString(out).getAsJsonObject();
        }
    }

    private Result cli(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Map<String, String> env = TestServers.childEnvironment();
        long start = System.nanoTime();
        int code = new Cli(env, DataHome.resolve(env), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8)).run(Arrays.asList(args));
        long ended = System.nanoTime();
        return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8),
                (ended - start) / 1_000_000, ended);
    }

    private static String viaProxy(PgAddress real, CuttableProxy proxy) {
        return real.secretUrl().replace("@" + real.host() + ":" + real.port() + "/", "@127.0.0.1:" + proxy.port() + "/");
    }

    /**
     * Freezes {@code proxy} once {@code ready} holds ({@code what}, in words), on a thread of its
     * own. It freezes anyway when the wait gives up, so the run ends; {@link Freezer#join} then
     * fails the test, saying what never happened.
     */
    private static Freezer freezeWhen(CuttableProxy proxy, String what, Poll.Check ready) {
        AtomicReference<String> gaveUp = new AtomicReference<>();
        AtomicLong frozeAt = new AtomicLong();
        Thread freezer = new Thread(() -> {
            try {
                if (!Poll.eventually(Duration.ofSeconds(60), ready)) {
                    gaveUp.set("never happened within 60 s: " + what);
                }
            } catch (Exception e) {
                gaveUp.set("watching for \"" + what + "\" failed: " + e);
            }
            frozeAt.set(System.nanoTime());
            proxy.freeze();
        }, "test-freezer");
        freezer.start();
        return new Freezer(freezer, gaveUp, frozeAt, new AtomicReference<>());
    }

    /**
     * The freezing thread, why it froze without its condition (if it did), when it froze, and
     * where RaceLab's threads were if the command was still going at its bound.
     */
    private record Freezer(Thread thread, AtomicReference<String> gaveUp, AtomicLong frozeAt,
                           AtomicReference<String> atBound) {
        /** Waits for the freeze; fails if it came only because the wait for its condition gave up. */
        void join() throws InterruptedException {
            thread.join();
            assertNull(gaveUp.get(), gaveUp::get);
        }

        /**
         * From the freeze on, notes where RaceLab's threads are once {@code boundMillis} have
         * passed, so a command that overruns its bound says what held it.
         */
        void watch(long boundMillis) {
            Thread watcher = new Thread(() -> {
                try {
                    while (frozeAt.get() == 0) {
                        Thread.sleep(10);
                    }
                    Thread.sleep(Math.max(0, boundMillis - (System.nanoTime() - frozeAt.get()) / 1_000_000));
                } catch (InterruptedException e) {
                    return;
                }
                atBound.set(racelabThreads());
            }, "test-bound-watch");
            watcher.setDaemon(true);
            watcher.start();
        }

        /**
         * Checks the command ended within {@code bound} of the freeze: the server fell silent
         * then, and what came before (starting, connecting, the run under way) is no part of it.
         */
        void endedWithin(long boundMillis, Result result) {
            long millis = (result.endedNanos() - frozeAt.get()) / 1_000_000;
            assertTrue(millis >= 0 && millis < boundMillis, () -> "it ended " + millis + " ms after the freeze (bound "
                    + boundMillis + " ms; " + result.millis() + " ms in all); " + result.err() + "\nat the bound:\n"
                    + atBound.get());
        }
    }

    /** Each thread with RaceLab's code on its stack, and that stack from the top to RaceLab's first frame. */
    private static String racelabThreads() {
        StringBuilder out = new StringBuilder();
        Thread.getAllStackTraces().forEach((thread, stack) -> {
            if (Arrays.stream(stack).noneMatch(f -> f.getClassName().startsWith("dev.racelab")
                    && !f.getClassName().startsWith("dev.racelab.cli.SilentServerTest"))) {
                return;
            }
            out.append(thread.getName()).append(' ').append(thread.getState()).append('\n');
            for (StackTraceElement frame : stack) {
                out.append("    ").append(frame).append('\n');
                if (frame.getClassName().startsWith("dev.racelab.engine.Run")) {
                    break;
                }
            }
        });
        return out.toString();
    }

    @Test
    void aPostgresThatFreezesMidRunEndsTheRunNamingItAndKeepsTheRecording() throws Exception {
        PgAddress real = TestServers.postgres().address();
        Path file = dir.resolve("frozen.racelab");
        try (CuttableProxy proxy = new CuttableProxy(real.host(), real.port()); PgProbe probe = new PgProbe()) {
            // Frozen once the run is well under way: each of its four clients has written (through
            // this relay: other tests may share the server), and a second more has passed. On a busy
            // machine that second may hold few writes, but never none.
            Freezer freezer = freezeWhen(proxy, "the run's four clients wrote through the relay, and a second passed",
                    underWay(() -> probe.sessionsThatRan("client-",
                    "UPDATE racelab.counters", proxy.upstreamPorts()) >= 4));
            freezer.watch(BOUND_MILLIS);
            Result result = cli("run", "counter", "--pg-url", viaProxy(real, proxy), "--workers", "4", "--ops",
                    "100000", "--delay", "after-read=2", "--timeout", String.valueOf(TIMEOUT_SECONDS), "--record",
                    file.toString(), "--json");
            freezer.join();
            assertEquals(1, result.code(), result.err());
            freezer.endedWithin(BOUND_MILLIS, result);
            assertEquals("ERROR", result.json().get("verdict").getAsString());
            String named = "PostgreSQL at 127.0.0.1:" + proxy.port();
            assertTrue(result.json().get("explanation").getAsString().startsWith(named),
                    result.json().get("explanation").getAsString());
            assertTrue(result.err().startsWith("racelab: " + named), result.err());
            Recording recording = new RecordingReader(new Labs(TestServers.backends()))
                    .read(file);
            assertEquals("ERROR", recording.last().outcome().verdict().name(), "the recording is whole");
            assertTrue(recording.last().events().snapshot().stream().filter(e -> e.kind() == EventKind.WRITE).count()
                    >= 4, "with what happened before the freeze: each client's writes");
        }
    }

    /**
     * A lab whose workers borrow pooled sessions (HikariCP): the pool, told to shut, waits for a
     * session it is still opening — a login to the silent server — and must not hold the run's end
     * (it did, 20 s and more past the freeze: soak runs 68 and 112 of seed 20261126). Its bound, from
     * the freeze, is tighter than the others': the timeout, the probe's five seconds, and five to spare.
     */
    @Test
    void aPooledLabWhosePostgresFreezesMidRunEndsWithinItsTimeoutAndTheProbe() throws Exception {
        PgAddress real = TestServers.postgres().address();
        try (CuttableProxy proxy = new CuttableProxy(real.host(), real.port()); PgProbe probe = new PgProbe()) {
            Freezer freezer = freezeWhen(proxy, "two pool sessions connected through the relay, and a second passed",
                    underWay(() -> probe.sessionsNamed("pool-", proxy.upstreamPorts()) >= 2));
            long bound = (TIMEOUT_SECONDS + 5 + 5) * 1_000L;
            freezer.watch(bound);
            Result result = cli("run", "advisory-lock", "--strategy", "session-pinned", "--pg-url",
                    viaProxy(real, proxy), "--workers", "4", "--ops", "100000", "--delay", "after-lock=2",
                    "--timeout", String.valueOf(TIMEOUT_SECONDS), "--json");
            freezer.join();
            assertEquals(1, result.code(), result.err());
            freezer.endedWithin(bound, result);
            assertEquals("ERROR", result.json().get("verdict").getAsString());
            assertTrue(result.err().startsWith("racelab: PostgreSQL at 127.0.0.1:" + proxy.port()), result.err());
        }
    }

    @Test
    void aPostgresSilentFromTheStartIsNamedWithoutRunning() throws Exception {
        PgAddress real = TestServers.postgres().address();
        try (CuttableProxy proxy = new CuttableProxy(real.host(), real.port())) {
            proxy.freeze();
            Result result = cli("run", "counter", "--pg-url", viaProxy(real, proxy), "--json");
            assertEquals(1, result.code(), result.err());
            assertTrue(result.millis() < BOUND_MILLIS, "it ended in " + result.millis() + " ms");
            List<String> err = lines(result.err().strip());
            assertEquals(1, err.size(), result.err());
            // It takes the connection and never answers the login: slow or stopped, not unreachable.
            assertTrue(err.get(0).startsWith("racelab: PostgreSQL at 127.0.0.1:" + proxy.port() + " is slow to answer: "
                    + "it took the connection but did not finish the login within 10 s"), err.get(0));
            assertEquals(0, result.json().get("runs").getAsInt(), "nothing ran: " + result.out());
            assertEquals("ERROR", result.json().get("verdict").getAsString(), result.out());
            assertEquals(err.get(0), "racelab: " + result.json().get("serverFailure").getAsString());
        }
    }

    @Test
    void aRedisThatFreezesMidRunEndsTheRunNamingItNotAsStuck() throws Exception {
        RedisAddress real = TestServers.redis().address();
        try (CuttableProxy proxy = new CuttableProxy(real.host(), real.port());
             Jedis watcher = TestServers.redis().open("test-watcher", 5_000)) {
            String url = real.at("127.0.0.1", proxy.port()).secretUrl();
            // Frozen once the run is well under way: every client in (through this relay: other
            // tests may share the server), and a second of work done.
            Freezer freezer = freezeWhen(proxy, "six of the run's clients connected to Redis through the relay, and a "
                    + "second passed", underWay(() -> clientsThrough(watcher, proxy) >= 6));
            freezer.watch(BOUND_MILLIS);
            Result result = cli("run", "readers-writers", "--redis-url", url, "--ops", "100000", "--delay",
                    "between-reads=2", "--timeout", String.valueOf(TIMEOUT_SECONDS), "--json");
            freezer.join();
            assertEquals(1, result.code(), result.err());
            freezer.endedWithin(BOUND_MILLIS, result);
            assertEquals("ERROR", result.json().get("verdict").getAsString(), "not STUCK: the server is the cause");
            String named = "Redis at 127.0.0.1:" + proxy.port();
            assertTrue(result.json().get("explanation").getAsString().startsWith(named),
                    result.json().get("explanation").getAsString());
            assertTrue(result.err().startsWith("racelab: " + named), result.err());
        }
    }

    @Test
    void aRedisThatFreezesWhileTheWorkersConnectEndsTheRunNamingIt() throws Exception {
        RedisAddress real = TestServers.redis().address();
        try (CuttableProxy proxy = new CuttableProxy(real.host(), real.port());
             Jedis watcher = TestServers.redis().open("test-watcher", 5_000)) {
            String url = real.at("127.0.0.1", proxy.port()).secretUrl();
            // Frozen as soon as the first worker's connection is in: the others are still opening
            // theirs (each a login and a subscription), and a server that takes a connection and
            // never answers must not hold that open for ever.
            Freezer freezer = freezeWhen(proxy, "a client of the run connected to Redis through the relay",
                    () -> clientsThrough(watcher, proxy) >= 1);
            freezer.watch(BOUND_MILLIS);
            Result result = cli("run", "readers-writers", "--redis-url", url, "--workers", "60", "--timeout",
                    String.valueOf(TIMEOUT_SECONDS), "--json");
            freezer.join();
            assertEquals(1, result.code(), result.err());
            freezer.endedWithin(BOUND_MILLIS, result);
            assertEquals("ERROR", result.json().get("verdict").getAsString());
            String named = "Redis at 127.0.0.1:" + proxy.port();
            assertTrue(result.err().startsWith("racelab: " + named), result.err());
        }
    }

    @Test
    void aConnectionToARedisThatNeverAnswersFailsInsteadOfWaitingForEver() throws Exception {
        RedisAddress real = TestServers.redis().address();
        try (CuttableProxy proxy = new CuttableProxy(real.host(), real.port())) {
            Redis redis = Redis.connect(real.at("127.0.0.1", proxy.port()));
            proxy.freeze();
            long start = System.nanoTime();
            // A subscriber's connection waits for ever for messages, but not for its login.
            JedisConnectionException refused = assertThrows(JedisConnectionException.class,
                    () -> redis.open("test-subscriber", 0).close());
            long millis = (System.nanoTime() - start) / 1_000_000;
            assertTrue(millis < 10_000, "gave up after " + millis + " ms");
            assertTrue(redis.lostConnection(refused).orElseThrow().startsWith("Redis at 127.0.0.1:" + proxy.port()
                    + " is slow to answer: it took the connection but did not finish the login within 5 s"),
                    redis.lostConnection(refused).orElseThrow());
        }
    }

    /** True from a second after {@code in} first held: the run it watches is well under way. */
    private static Poll.Check underWay(Poll.Check in) {
        long[] since = {0};
        return () -> {
            if (since[0] == 0 && in.holds()) {
                since[0] = System.nanoTime();
            }
            return since[0] != 0 && System.nanoTime() - since[0] >= 1_000_000_000L;
        };
    }

    /** How many of a run's clients (named {@code …:client-N}) are connected to Redis through {@code proxy}. */
    private static long clientsThrough(Jedis watcher, CuttableProxy proxy) {
        java.util.Set<Integer> ports = proxy.upstreamPorts();
        return watcher.clientList().lines().filter(line -> line.contains(":client-")).filter(line -> {
            int at = line.indexOf("addr=");
            String addr = line.substring(at + 5, line.indexOf(' ', at));
            return ports.contains(Integer.parseInt(addr.substring(addr.lastIndexOf(':') + 1)));
        }).count();
    }

    private static List<String> lines(String text) {
        return new ArrayList<>(List.of(text.split("\n")));
    }
}
