package dev.racelab.cli;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.racelab.backend.BackendSettings;
import dev.racelab.backend.DataHome;
import dev.racelab.engine.Run;
import dev.racelab.support.Poll;
import dev.racelab.support.TestServers;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * The command line run in this JVM, on the test servers (both named in its environment), while a
 * thread of the test does something to the run once its workers are under way (ends one of its
 * sessions, drops its connections). A run that goes on past the bound after that is stopped and
 * the test fails, saying so; so does an action that fails.
 */
final class DuringRun {

    /** What the command did, and how long after the action it ended. */
    record Result(int code, String out, String err, long millisAfter) {
        JsonObject json() {
            return JsonParser.parseString(out).getAsJsonObject();
        }
    }

    /** What the test does to the run, on its own thread. */
    @FunctionalInterface
    interface Action {
        void act(Run run) throws Exception;
    }

    private DuringRun() {
    }

    /**
     * Runs {@code args}; once the run has finished {@code opsFirst} operations, does {@code action}
     * to it and gives it {@code bound} to end.
     */
    static Result run(List<String> args, long opsFirst, Action action, Duration bound) throws Exception {
        AtomicReference<Run> running = new AtomicReference<>();
        AtomicReference<Throwable> trouble = new AtomicReference<>();
        AtomicLong actedAt = new AtomicLong();
        Thread actor = new Thread(() -> {
            Run run = null;
            try {
                Poll.until("the run starts", () -> running.get() != null);
                run = running.get();
                Run started = run;
                Poll.until(opsFirst + " operations done", () -> started.opsCompleted() >= opsFirst);
                action.act(run);
                actedAt.set(System.nanoTime());
                if (!Poll.eventually(bound, started.outcome()::isDone)) {
                    trouble.set(new AssertionError("the run went on " + bound.toMillis() + " ms after the test acted"));
                    run.stop();
                }
            } catch (Throwable e) {
                trouble.set(e);
                if (run != null) {
                    run.stop();
                }
            }
        }, "test-during-run");
        actor.start();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Map<String, String> env = new HashMap<>(TestServers.childEnvironment());
        env.put(BackendSettings.REDIS_ENV, TestServers.redis().address().secretUrl());
        int code;
        try {
            code = new Cli(env, DataHome.resolve(env), new PrintStream(out, true, StandardCharsets.UTF_8),
                    new PrintStream(err, true, StandardCharsets.UTF_8)).watching(running::set).run(args);
        } finally {
            actor.join();
        }
        long millis = (System.nanoTime() - actedAt.get()) / 1_000_000;
        assertNull(trouble.get(), () -> "during the run: " + trouble.get());
        return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8), millis);
    }
}
