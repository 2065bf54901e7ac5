package dev.racelab.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * What reading a large recording costs a user: the peak resident size, the CPU time and the wall
 * time of {@code replay} and of each export of a made-up recording ({@link SyntheticRecording}) of
 * a million events, ten million, or what the arguments say, each run as its own process through
 * {@code scripts/racelab}, as a user runs it, and measured by {@code /usr/bin/time}; beside them,
 * in the same rounds, the peer a user would otherwise write: a streaming Python converter to CSV
 * ({@code bench/recording_to_csv.py}, Python's json and csv modules, line by line). Replay, CSV and
 * trace alternate with the peer over three rounds; the figure is the median of RaceLab's CPU over
 * the peer's, the goal at most 0.5, and its resident size under 300 MB. The pictures are measured
 * once. The recordings and exports go to {@code target/bench-recordings} and are removed at the end.
 *
 * <p>Run with {@code scripts/bench recordings [events…]}.
 */
public final class RecordingMemoryBenchmark {

    private static final List<String> COMPARED = List.of("replay", "csv", "trace");
    private static final List<String> ONCE = List.of("svg", "png");
    /** A picture of a larger run takes minutes (it folds every event of the run into its pixels): not measured. */
    private static final long PICTURES_UP_TO = 2_000_000;
    private static final int ROUNDS = 3;
    private static final String PEER = "python csv";

    private RecordingMemoryBenchmark() {
    }

    /** One process's figures: peak resident size, wall and CPU seconds, exit code. */
    private record Sample(long residentMb, double seconds, double cpu, int exit) {
    }

    public static void main(String[] args) throws Exception {
        Path time = Path.of("/usr/bin/time");
        if (!Files.isExecutable(time)) {
            System.err.println("bench: recordings needs /usr/bin/time (Debian: apt-get install time)");
            System.exit(2);
        }
        Path dir = Path.of("target", "bench-recordings");
        Files.createDirectories(dir);
        Path peer = dir.resolve("recording_to_csv.py");
        try (var script = RecordingMemoryBenchmark.class.getResourceAsStream("/bench/recording_to_csv.py")) {
            Files.copy(script, peer, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
        List<Long> sizes = new ArrayList<>();
        for (String arg : args.length == 0 ? new String[] {"1000000", "10000000"} : args) {
            sizes.add(Long.parseLong(arg.replace("_", "")));
        }
        // scripts/racelab rebuilds a jar older than the sources: once here, not inside a measurement.
        new ProcessBuilder("scripts/racelab", "version").redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.INHERIT).start().waitFor();
        System.out.printf("%d cores; each RaceLab figure beside the Python converter's of the same round%n",
                Runtime.getRuntime().availableProcessors());
        System.out.printf("%-10s %-5s %-10s %9s %8s %8s %6s %5s%n", "events", "round", "what", "resident", "wall s",
                "CPU s", "load", "");
        try {
            for (long events : sizes) {
                Path recording = dir.resolve(events + ".racelab");
                SyntheticRecording.write(events, recording, dir.resolve("home"));
                Map<String, List<Double>> ratios = new LinkedHashMap<>();
                Map<String, Long> resident = new LinkedHashMap<>();
                for (int round = 1; round <= ROUNDS; round++) {
                    for (String what : COMPARED) {
                        boolean peerFirst = (round + COMPARED.indexOf(what)) % 2 == 0;
                        Sample theirs = null;
                        if (peerFirst) {
                            theirs = print(events, round, PEER, measure(time, dir, recording, PEER, peer));
                        }
                        Sample ours = print(events, round, what, measure(time, dir, recording, what, peer));
                        if (!peerFirst) {
                            theirs = print(events, round, PEER, measure(time, dir, recording, PEER, peer));
                        }
                        ratios.computeIfAbsent(what, k -> new ArrayList<>()).add(ours.cpu() / theirs.cpu());
                        resident.merge(what, ours.residentMb(), Math::max);
                        resident.merge(PEER, theirs.residentMb(), Math::max);
                    }
                }
                for (String what : ONCE) {
                    if (events <= PICTURES_UP_TO) {
                        print(events, 1, what, measure(time, dir, recording, what, peer));
                    }
                }
                for (Map.Entry<String, List<Double>> r : ratios.entrySet()) {
                    List<Double> sorted = r.getValue().stream().sorted().toList();
                    double median = sorted.get(sorted.size() / 2);
                    long mb = resident.get(r.getKey());
                    System.out.printf("%-10d %-10s CPU %.2f× the Python converter's (median of %d; goal ≤ 0.5: %s), "
                                    + "resident at most %d MB (its %d MB; goal < 300: %s)%n", events, r.getKey(), median,
                            sorted.size(), median <= 0.5 ? "yes" : "NO", mb, resident.get(PEER),
                            mb < 300 ? "yes" : "NO");
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

    private static Sample print(long events, int round, String what, Sample s) {
        System.out.printf("%-10d %-5d %-10s %6d MB %8.2f %8.2f %6.1f %s%n", events, round, what, s.residentMb(),
                s.seconds(), s.cpu(), java.lang.management.ManagementFactory.getOperatingSystemMXBean()
                        .getSystemLoadAverage(), s.exit() == 0 ? "" : "exit " + s.exit());
        return s;
    }

    private static Sample measure(Path time, Path dir, Path recording, String what, Path peer) throws Exception {
        Path report = dir.resolve("time.txt");
        // scripts/racelab, or an installed launcher to measure (RACELAB_BENCH_LAUNCHER=…/bin/racelab-cli).
        String launcher = System.getenv().getOrDefault("RACELAB_BENCH_LAUNCHER", "scripts/racelab");
        List<String> command = new ArrayList<>(List.of(time.toString(), "-f", "%M %e %U %S", "-o", report.toString()));
        if (what.equals(PEER)) {
            command.addAll(List.of("python3", peer.toString(), recording.toString(), dir.resolve("peer.csv").toString()));
        } else if (what.equals("replay")) {
            command.addAll(List.of(launcher, "replay", recording.toString()));
        } else {
            command.addAll(List.of(launcher, "export", recording.toString(), "--format", what, "--out",
                    dir.resolve("out." + what).toString(), "--force"));
        }
        Process process = new ProcessBuilder(command).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        if (!process.waitFor(30, TimeUnit.MINUTES)) {
            process.destroyForcibly();
            throw new IllegalStateException(what + " did not finish in 30 minutes");
        }
        String[] f = Files.readString(report).trim().split("\\s+");
        int n = f.length;
        return new Sample(Long.parseLong(f[n - 4]) / 1024, Double.parseDouble(f[n - 3]),
                Double.parseDouble(f[n - 2]) + Double.parseDouble(f[n - 1]), process.exitValue());
    }
}
