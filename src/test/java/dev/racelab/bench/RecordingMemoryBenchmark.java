package dev.racelab.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * What reading a large recording costs a user: the peak resident size and the time of {@code
 * replay} and of each export of a made-up recording ({@link SyntheticRecording}) of a million
 * events, five million, or what the arguments say, each run as its own process through {@code
 * scripts/racelab}, as a user runs it, and measured by {@code /usr/bin/time}. The recordings and
 * exports go to {@code target/bench-recordings} and are removed at the end.
 *
 * <p>Run with {@code scripts/bench recordings [events…]}.
 */
public final class RecordingMemoryBenchmark {

    private static final List<String> WHAT = List.of("replay", "csv", "trace", "svg", "png");

    private RecordingMemoryBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        Path time = Path.of("/usr/bin/time");
        if (!Files.isExecutable(time)) {
            System.err.println("bench: recordings needs /usr/bin/time (Debian: apt-get install time)");
            System.exit(2);
        }
        Path dir = Path.of("target", "bench-recordings");
        Files.createDirectories(dir);
        List<Long> sizes = new ArrayList<>();
        for (String arg : args.length == 0 ? new String[] {"1000000", "5000000"} : args) {
            sizes.add(Long.parseLong(arg.replace("_", "")));
        }
        // scripts/racelab rebuilds a jar older than the sources: once here, not inside a measurement.
        new ProcessBuilder("scripts/racelab", "version").redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.INHERIT).start().waitFor();
        System.out.printf("%-12s %-8s %12s %10s%n", "events", "what", "resident", "seconds");
        try {
            for (long events : sizes) {
                Path recording = dir.resolve(events + ".racelab");
                SyntheticRecording.write(events, recording, dir.resolve("home"));
                for (String what : WHAT) {
                    measure(time, dir, recording, events, what);
                }
                Files.delete(recording);
            }
        } finally {
            try (var files = Files.list(dir)) {
                for (Path file : files.toList()) {
                    if (Files.isRegularFile(file)) {
                        Files.delete(file);
                    }
                }
            }
        }
    }

    private static void measure(Path time, Path dir, Path recording, long events, String what) throws Exception {
        Path report = dir.resolve("time.txt");
        // scripts/racelab, or an installed launcher to measure (RACELAB_BENCH_LAUNCHER=…/bin/racelab-cli).
        String launcher = System.getenv().getOrDefault("RACELAB_BENCH_LAUNCHER", "scripts/racelab");
        List<String> command = new ArrayList<>(List.of(time.toString(), "-f", "%M %e", "-o", report.toString(),
                launcher));
        if (what.equals("replay")) {
            command.addAll(List.of("replay", recording.toString()));
        } else {
            command.addAll(List.of("export", recording.toString(), "--format", what, "--out",
                    dir.resolve("out." + what).toString(), "--force"));
        }
        Process process = new ProcessBuilder(command).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        if (!process.waitFor(30, TimeUnit.MINUTES)) {
            process.destroyForcibly();
            System.out.printf("%-12d %-8s did not finish in 30 minutes%n", events, what);
            return;
        }
        String[] figures = Files.readString(report).trim().split("\\s+");
        System.out.printf("%-12d %-8s %9d MB %10s%s%n", events, what, Long.parseLong(figures[figures.length - 2]) / 1024,
                figures[figures.length - 1], process.exitValue() == 0 ? "" : "   exit " + process.exitValue());
    }
}
