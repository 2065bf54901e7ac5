package dev.racelab.support;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A RaceLab started as its own process, the way a user starts it.
 *
 * <p>{@link #stop} ends it and whatever it left running: its own child processes, and the
 * embedded servers running under its {@code RACELAB_HOME} (a RaceLab killed outright leaves them
 * running on purpose, for the next start to find). Tests stop every child in
 * a {@code finally} or {@code @AfterEach} ({@link Children}), so a failing test leaves nothing.
 */
public final class Child {

    private final Process process;
    private final Path out;
    private final Path err;
    private final Optional<Path> home;

    private Child(Process process, Path out, Path err, Optional<Path> home) {
        this.process = process;
        this.out = out;
        this.err = err;
        this.home = home;
    }

    /** The script users run: {@code scripts/racelab}. */
    public static Path script() {
        return Path.of(System.getProperty("racelab.script", "scripts/racelab"));
    }

    /** The built jar. */
    public static Path jar() {
        return Path.of(System.getProperty("racelab.jar", "target/racelab.jar"));
    }

    public static Child start(List<String> command, Map<String, String> env) throws IOException {
        Path out = Files.createTempFile("racelab-child", ".out");
        Path err = Files.createTempFile("racelab-child", ".err");
        ProcessBuilder builder = new ProcessBuilder(command)
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(out.toFile())
                .redirectError(err.toFile());
        builder.environment().remove("RACELAB_PG_URL");
        builder.environment().remove("RACELAB_REDIS_URL");
        builder.environment().putAll(env);
        return new Child(builder.start(), out, err, Optional.ofNullable(env.get("RACELAB_HOME")).map(Path::of));
    }

    public static Child script(Map<String, String> env, String... args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(script().toString());
        command.addAll(List.of(args));
        return start(command, env);
    }

    public static Child jar(Map<String, String> env, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of("java", "-jar", jar().toString()));
        command.addAll(List.of(args));
        return start(command, env);
    }

    public int await(long seconds) throws Exception {
        if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("the child did not end within " + seconds + " s; stderr: " + err());
        }
        return process.exitValue();
    }

    /**
     * Kills the child and its descendants at once, then every process running under its {@code
     * RACELAB_HOME} (its servers run in their data directories there, see {@link ProcFs}), so
     * nothing but this child's own processes is ever signalled. Idempotent; for {@code finally}
     * blocks and {@code @AfterEach}.
     */
    public void stop() {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        try {
            process.waitFor(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        home.ifPresent(ProcFs::killAllIn);
    }

    public Process process() {
        return process;
    }

    public String out() throws IOException {
        return Files.readString(out, StandardCharsets.UTF_8);
    }

    public String err() throws IOException {
        return Files.readString(err, StandardCharsets.UTF_8);
    }
}
