package dev.racelab.bench;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * What else keeps the machine busy while a benchmark runs: its one-minute load average, and, when
 * asked, one busy loop per core beside the benchmark (each a shell spinning in a process of its
 * own, so the benchmark's and its peer's threads compete with them as with any other program).
 * The loops are stopped on {@link #close()}, and by a shutdown hook if the benchmark is cut short.
 */
final class MachineLoad implements AutoCloseable {

    private final List<Process> loops;
    private final Thread hook;

    private MachineLoad(List<Process> loops) {
        this.loops = loops;
        this.hook = new Thread(this::stopLoops, "bench-busy-loops-stop");
        Runtime.getRuntime().addShutdownHook(hook);
    }

    /** Nothing added: the machine as it is. */
    static MachineLoad asItIs() {
        return new MachineLoad(List.of());
    }

    /** One busy loop per core, running until {@link #close()}. */
    static MachineLoad busyLoops() throws Exception {
        List<Process> loops = new ArrayList<>();
        for (int i = 0; i < Runtime.getRuntime().availableProcessors(); i++) {
            loops.add(new ProcessBuilder("sh", "-c", "while :; do :; done").start());
        }
        return new MachineLoad(loops);
    }

    /** The machine's one-minute load average. */
    static double oneMinute() {
        return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }

    /** What this adds to the machine, in words for a benchmark's heading. */
    String describe() {
        return loops.isEmpty() ? "nothing else started by the benchmark"
                : "one busy loop per core beside it (" + loops.size() + " spinning processes)";
    }

    private void stopLoops() {
        for (Process loop : loops) {
            loop.destroyForcibly();
        }
        for (Process loop : loops) {
            try {
                loop.waitFor(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    @Override
    public void close() {
        stopLoops();
        Runtime.getRuntime().removeShutdownHook(hook);
    }
}
