package dev.racelab.isolation;

import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * PostgreSQL's own isolation specs and expected outputs, read where they lie beside the project
 * ({@code ../shared/isolation/pg17}, {@code pg15}) and never copied into it. A checkout without
 * them skips the tests that need them, saying so.
 */
public final class PostgresSpecs {

    private final Path folder;

    private PostgresSpecs(Path folder) {
        this.folder = folder;
    }

    /** The specs for PostgreSQL {@code major} (17 or 15); skips the calling test when they are absent. */
    public static PostgresSpecs forMajor(int major) {
        Path folder = Path.of(System.getProperty("user.dir")).resolve("../shared/isolation/pg" + major).normalize();
        Assumptions.assumeTrue(Files.isDirectory(folder.resolve("specs")),
                "PostgreSQL's isolation specs are not at " + folder + " (a checkout without ../shared): skipped");
        return new PostgresSpecs(folder);
    }

    /** The tests {@code isolation_schedule} names, in its order. */
    public List<String> schedule() {
        List<String> names = new ArrayList<>();
        for (String line : lines(folder.resolve("isolation_schedule"))) {
            if (line.startsWith("test:")) {
                for (String name : line.substring("test:".length()).strip().split("\\s+")) {
                    names.add(name);
                }
            }
        }
        return names;
    }

    public Path spec(String name) {
        return folder.resolve("specs").resolve(name + ".spec");
    }

    /** The expected output and its variants ({@code NAME_1.out}, …): matching any one counts. */
    public List<String> expected(String name) {
        try (Stream<Path> files = Files.list(folder.resolve("expected"))) {
            return files.filter(f -> {
                String file = f.getFileName().toString();
                return file.equals(name + ".out") || file.matches(java.util.regex.Pattern.quote(name) + "_[0-9]+\\.out");
            }).sorted().map(PostgresSpecs::read).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every spec file there, scheduled or not. */
    public List<Path> allSpecs() {
        try (Stream<Path> files = Files.list(folder.resolve("specs"))) {
            return files.filter(f -> f.toString().endsWith(".spec")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<String> lines(Path file) {
        return List.of(read(file).split("\n"));
    }
}
