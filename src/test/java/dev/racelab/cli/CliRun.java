package dev.racelab.cli;

import dev.racelab.backend.BackendSettings;
import dev.racelab.backend.DataHome;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/** A command line run in-process, as a test sees it: its exit code, standard output, standard error's lines. */
record CliRun(int code, String out, List<String> err) {

    /** A command run against the tests' own servers (embedded, or those RACELAB_PG_URL and RACELAB_REDIS_URL name). */
    static CliRun onTestServers(String... args) {
        return of(Map.of(BackendSettings.PG_ENV, dev.racelab.support.TestServers.postgres().address().secretUrl(),
                BackendSettings.REDIS_ENV, dev.racelab.support.TestServers.redis().address().secretUrl()), args);
    }

    static CliRun of(Map<String, String> env, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = new Cli(env, DataHome.resolve(env), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8)).run(List.of(args));
        String errText = err.toString(StandardCharsets.UTF_8);
        return new CliRun(code, out.toString(StandardCharsets.UTF_8),
                errText.isEmpty() ? List.of() : List.of(errText.split("\n")));
    }

    /**
     * The environment of a command that must be refused before any server: servers where nobody
     * listens, so one that got past its checks ends with exit 1 ("cannot be reached"), never
     * starting an embedded server nor touching a real one; its data home under {@code home}.
     */
    static Map<String, String> nowhere(Path home) {
        return Map.of(
                BackendSettings.PG_ENV, "postgresql://nobody@127.0.0.1:1/nowhere",
                BackendSettings.REDIS_ENV, "redis://127.0.0.1:1",
                "RACELAB_HOME", home.toString());
    }
}
