package dev.racelab.bench;

import dev.racelab.classroom.ClassHost;
import dev.racelab.classroom.JoinLine;
import dev.racelab.engine.Outcome;
import dev.racelab.labs.Labs;
import dev.racelab.support.TestServers;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@code scripts/bench class [participants] [rounds] [ops]}: a class on this machine against RaceLab's
 * embedded servers, each participant a RaceLab process of its own. It prints how long they took to
 * join, how long the host's words took to reach every participant (go and resume release the gates;
 * pause halts them at the next; {@code rounds} of pause and resume a few seconds into a run of
 * {@code ops} increments each; p50, p95, the longest), each clock estimate beside the skew injected
 * into that participant's wall clock, and the verdict. {@code BENCH_SLOWEST=1} lists the slowest.
 */
public final class ClassBenchmark {

    private ClassBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int participants = args.length > 0 ? Integer.parseInt(args[0]) : 40;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 8;
        int ops = args.length > 2 ? Integer.parseInt(args[2]) : 60;
        Path home = Files.createTempDirectory("racelab-class-bench");
        List<Process> members = new ArrayList<>();
        Map<String, Long> injected = new HashMap<>();
        System.out.printf("a class of %d participant processes on one machine: %d cores; load %.1f; %s; %s%n",
                participants, Runtime.getRuntime().availableProcessors(), MachineLoad.oneMinute(),
                TestServers.topologies().describe(dev.racelab.engine.Service.POSTGRES),
                TestServers.topologies().describe(dev.racelab.engine.Service.REDIS));
        try (ClassHost host = ClassHost.open(TestServers.topologies(), home, line -> { })) {
            JoinLine line = host.joinLine();
            long began = System.nanoTime();
            for (int i = 1; i <= participants; i++) {
                String name = "p" + i;
                long skewMs = (i % 5 - 2) * 250L;
                injected.put(name, skewMs);
                ProcessBuilder member = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java")
                        .toString(), "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx128m",
                        "-cp", System.getProperty("java.class.path"), "dev.racelab.Launcher",
                        "class", "join", line.text(), "--name", name, "--headless")
                        .redirectOutput(new File("/dev/null")).redirectError(home.resolve(name + ".err").toFile());
                member.environment().put("RACELAB_HOME", home.resolve(name).toString());
                member.environment().put("RACELAB_CLASS_SKEW_MS", String.valueOf(skewMs));
                members.add(member.start());
            }
            var seats = host.awaitJoins(participants, Duration.ofSeconds(300));
            System.out.printf("joined: all %d in %.1f s from the first start%n", participants,
                    (System.nanoTime() - began) / 1e9);
            var lab = new Labs(TestServers.topologies()).named("counter");
            AtomicReference<Throwable> failed = new AtomicReference<>();
            AtomicReference<dev.racelab.engine.Run> live = new AtomicReference<>();
            host.watching(live::set);
            CompletableFuture<ClassHost.Hosted> run = CompletableFuture.supplyAsync(() -> {
                try {
                    return host.run("counter", lab.defaults().withOps(ops), seats);
                } catch (Exception e) {
                    failed.set(e);
                    return null;
                }
            });
            // The words are timed once the run is under way: before, participants are connecting their workers.
            while (!run.isDone() && (live.get() == null || live.get().phase() != dev.racelab.engine.RunPhase.RUNNING)) {
                Thread.sleep(10);
            }
            Thread.sleep(3_000);
            for (int r = 0; r < rounds && !run.isDone(); r++) {
                host.pause();
                Thread.sleep(400);
                host.resume();
                Thread.sleep(400);
            }
            ClassHost.Hosted hosted = run.get(10, TimeUnit.MINUTES);
            if (hosted == null) {
                throw new IllegalStateException("the class's run failed", failed.get());
            }
            for (String what : List.of("go", "pause", "resume")) {
                long[] nanos = hosted.heard().stream().filter(h -> h.what().equals(what))
                        .mapToLong(ClassHost.Heard::nanos).sorted().toArray();
                if (nanos.length > 0) {
                    System.out.printf("%-6s reached %4d participant(s) × times: p50 %6.1f ms · p95 %6.1f ms · longest "
                                    + "%6.1f ms%n", what, nanos.length, at(nanos, 0.50), at(nanos, 0.95),
                            nanos[nanos.length - 1] / 1e6);
                }
            }
            if (System.getenv("BENCH_SLOWEST") != null && !System.getenv("BENCH_SLOWEST").isEmpty()) {
                hosted.heard().stream().sorted((a, b) -> Long.compare(b.nanos(), a.nanos())).limit(15)
                        .forEach(h -> System.out.printf("  slow: %s %s %.1f ms%n", h.name(), h.what(), h.nanos() / 1e6));
            }
            System.out.println("clock estimates (server minus the participant's wall clock) beside the skew injected:");
            long worst = 0;
            Map<String, Long> skews = host.skews();
            for (var e : skews.entrySet()) {
                long expected = -injected.getOrDefault(e.getKey(), 0L) * 1_000_000L;
                worst = Math.max(worst, Math.abs(e.getValue() - expected));
            }
            System.out.printf("  %d participants, injected -500 to +500 ms: largest difference from the injected skew "
                    + "%.2f ms%n", skews.size(), worst / 1e6);
            hosted.parts().stream().filter(p -> p.neverBegan() != null).forEach(p ->
                    System.out.printf("  %s could not begin: %s%n", p.name(), p.neverBegan()));
            Outcome outcome = hosted.record().outcome();
            System.out.printf("verdict: %s — %s (committed %s, final %s; lost by participant add up to %d)%n",
                    outcome.verdict(), outcome.headline(), outcome.metrics().get("committedIncrements"),
                    outcome.metrics().get("finalValue"),
                    hosted.parts().stream().mapToLong(dev.racelab.classroom.Ledger.Part::lost).sum());
            Path file = home.resolve("class.racelab");
            try (var writer = dev.racelab.record.RecordingWriter.create(file)) {
                writer.write(hosted.lab(), hosted.record());
                writer.commit(1, 0, false);
            }
            try (var none = new dev.racelab.backend.Backends(dev.racelab.backend.BackendSettings.embedded(),
                    home.resolve("none"), dev.racelab.backend.StartupListener.SILENT)) {
                var replayed = new dev.racelab.record.RecordingReader(new Labs(none)).read(file).last();
                long lanes = 0;
                java.util.Set<String> named = new java.util.HashSet<>();
                for (long seq = 0; seq < replayed.events().size(); seq++) {
                    var e = replayed.events().get(seq);
                    if (e.kind() == dev.racelab.engine.EventKind.ACTOR) {
                        lanes++;
                        if (e.value() == dev.racelab.engine.Actor.Kind.WORKER.ordinal()) {
                            named.add(e.subject().substring(0, Math.max(0, e.subject().indexOf(" · "))));
                        }
                    }
                }
                System.out.printf("recording: %,d bytes, %d lanes (the host's run lane and the rest), workers' lanes "
                                + "of %d participants, replayed with no server: %s%n", Files.size(file), lanes,
                        named.size(), replayed.outcome().equals(outcome) ? "the same verdict and figures" : "DIFFERENT");
            }
            ClassHost.Hosted fixed = host.run("counter", lab.defaults().withOps(20).withStrategy("atomic-update"), seats);
            System.out.printf("the fix, the same %d participants: %s — %s%n", participants,
                    fixed.record().outcome().verdict(), fixed.record().outcome().headline());
        } finally {
            for (Process p : members) {
                p.destroyForcibly();
            }
            System.out.printf("load after: %.1f%n", MachineLoad.oneMinute());
        }
        System.exit(0);
    }

    private static double at(long[] sorted, double quantile) {
        int i = (int) Math.ceil(quantile * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, i))] / 1e6;
    }
}
