package dev.racelab.support;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** A RaceLab started as its own process, the way a user starts it. */
public final class Child {

    private final Process process;
    private final Path out;
    private final Path err;

    private Child(Process process, Path out, Path err) {
        this.process = process;
        this.out = out;
        this.err = err;
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
        return new Child(builder.start(), out, err);
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
