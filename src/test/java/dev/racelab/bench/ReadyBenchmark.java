package dev.racelab.bench;

import dev.racelab.support.WindowReady;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * How long RaceLab takes from launch to a usable window with both of its embedded servers up,
 * started cold (an empty data directory: JavaFX's libraries, the server binaries and PostgreSQL's
 * cluster all made anew) or warm (the data directory as the previous start left it).
 *
 * <p>Watched from outside ({@link WindowReady}): the screen shows the laid-out window, and the
 * servers running under the data directory are up, PostgreSQL with RaceLab's schema in it (so
 * RaceLab has opened it) and Redis answering a {@code PING}. A run is ready when all three are. A
 * run not ready within two minutes is reported as such, never as a figure. Each run is then ended as
 * a user's SIGTERM would end it, and its servers must be gone within 15 seconds.
 *
 * <p>Arguments: runs (default 5), {@code cold}, {@code warm} or {@code both} (default, cold first),
 * the data directory (default {@code target/bench-ready-home}), then the command (default {@code
 * java -jar target/racelab.jar}). The child gets {@code RACELAB_HOME} set to the data directory; a
 * command that starts RaceLab as another user must pass it on (as {@code setpriv} does).
 */
public final class ReadyBenchmark {

    private static final long GIVE_UP_SECONDS = 120;

    private ReadyBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int runs = args.length > 0 ? Integer.parseInt(args[0]) : 5;
        List<String> modes = args.length > 1 && !args[1].equals("both") ? List.of(args[1]) : List.of("cold", "warm");
        Path home = Path.of(args.length > 2 ? args[2] : "target/bench-ready-home").toAbsolutePath();
        List<String> command = args.length > 3 ? Arrays.asList(args).subList(3, args.length)
                : List.of("java", "-jar", "target/racelab.jar");
        WindowReady watch = new WindowReady();
        if (command.get(0).endsWith("scripts/racelab")) {
            // scripts/racelab rebuilds a jar older than the sources: once here, not inside the first run.
            new ProcessBuilder(command.get(0), "version").redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .redirectError(ProcessBuilder.Redirect.INHERIT).start().waitFor();
        }
        for (String mode : modes) {
            boolean cold = mode.equals("cold");
            if (!cold && !Files.isDirectory(home.resolve("postgres"))) {
                System.out.println("warm: a first start to fill " + home + " (not counted): " + run(watch, command, home));
            }
            List<Long> ready = new ArrayList<>();
            for (int i = 1; i <= runs; i++) {
                if (cold) {
                    deleteRecursively(home);
                }
                String result = run(watch, command, home);
                System.out.printf("%s run %d: %s%n", mode, i, result);
                if (result.startsWith("ready after ")) {
                    ready.add(Long.parseLong(result.substring("ready after ".length(), result.indexOf(" ms"))));
                }
            }
            System.out.printf("%s (%d of %d ready): median %s ms, min %s, max %s (%d cores, load %.1f)%n", mode,
                    ready.size(), runs, ready.isEmpty() ? "-" : FirstFrameBenchmark.median(ready),
                    ready.stream().min(Long::compare).map(String::valueOf).orElse("-"),
                    ready.stream().max(Long::compare).map(String::valueOf).orElse("-"),
                    Runtime.getRuntime().availableProcessors(),
                    java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
        }
    }

    private static String run(WindowReady watch, List<String> command, Path home) throws Exception {
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD);
        builder.environment().put("RACELAB_HOME", home.toString());
        long start = System.nanoTime();
        Process child = builder.start();
        WindowReady.Times times;
        try {
            times = watch.await(child, start, home, GIVE_UP_SECONDS);
        } finally {
            child.destroy();
            if (!child.waitFor(30, TimeUnit.SECONDS)) {
                child.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
        String stopped = WindowReady.serversGone(home) ? "" : "; ITS SERVERS OUTLIVED IT (killed)";
        return times.ready().map(ms -> "ready after " + ms + " ms").orElse("NOT ready within " + GIVE_UP_SECONDS + " s")
                + " (" + times + ")" + stopped;
    }

    private static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path path : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }
}
