package dev.racelab.soak;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Every process the soak saw belonging to one child RaceLab (its descendants, its embedded
 * servers and their processes), each remembered with its start time, so a pid the system hands to
 * some other program later is never mistaken for one of them, nor signalled.
 */
final class Processes {

    private final Map<Long, Seen> seen = new LinkedHashMap<>();

    private record Seen(ProcessHandle handle, Instant started, String command) {
    }

    void add(ProcessHandle process) {
        if (!seen.containsKey(process.pid())) {
            Optional<Instant> started = process.info().startInstant();
            if (started.isPresent() && process.isAlive()) {
                seen.put(process.pid(), new Seen(process, started.get(),
                        process.info().commandLine().orElse(process.info().command().orElse("?"))));
            }
        }
    }

    void add(Stream<ProcessHandle> processes) {
        processes.forEach(this::add);
    }

    /**
     * Waits up to {@code grace} for every process seen to end; kills those still running and
     * returns them, described.
     */
    List<String> awaitGone(Duration grace) throws InterruptedException {
        long deadline = System.nanoTime() + grace.toNanos();
        while (!running().isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        List<String> left = new ArrayList<>();
        for (Seen process : running()) {
            left.add(process.handle().pid() + " " + abbreviate(process.command()));
            process.handle().destroyForcibly();
        }
        return left;
    }

    private List<Seen> running() {
        List<Seen> running = new ArrayList<>();
        for (Seen process : seen.values()) {
            if (stillThere(process)) {
                running.add(process);
            }
        }
        return running;
    }

    /** The same process (same pid, same start), alive and not a zombie waiting to be reaped. */
    private static boolean stillThere(Seen process) {
        ProcessHandle handle = process.handle();
        if (!handle.isAlive() || !handle.info().startInstant().map(process.started()::equals).orElse(false)) {
            return false;
        }
        try {
            String stat = Files.readString(Path.of("/proc", String.valueOf(handle.pid()), "stat"));
            char state = stat.charAt(stat.lastIndexOf(')') + 2);
            return state != 'Z' && state != 'X';
        } catch (IOException | RuntimeException gone) {
            return false;
        }
    }

    private static String abbreviate(String command) {
        return command.length() <= 160 ? command : command.substring(0, 160) + "…";
    }
}
