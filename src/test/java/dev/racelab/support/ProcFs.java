package dev.racelab.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * What Linux's {@code /proc} says of processes, for tests that kill RaceLabs and their servers:
 * which processes run in a directory (servers run in their data directory), and which TCP ports a
 * process has open (to tell its connections in a server's client list from everyone else's).
 */
public final class ProcFs {

    private ProcFs() {
    }

    /** Every process whose working directory lies under {@code dir}. */
    public static List<ProcessHandle> runningIn(Path dir) {
        List<ProcessHandle> found = new ArrayList<>();
        Path real;
        try {
            real = dir.toRealPath();
        } catch (IOException gone) {
            return found;
        }
        ProcessHandle.allProcesses().forEach(process -> {
            try {
                Path cwd = Path.of("/proc", Long.toString(process.pid()), "cwd").toRealPath();
                if (cwd.startsWith(real)) {
                    found.add(process);
                }
            } catch (IOException | SecurityException unreadable) {
                // Ended meanwhile, or not ours to read.
            }
        });
        return found;
    }

    /**
     * Every process that works on something under {@code dir}, as "pid command line": those running
     * in it (servers, in their data directories), and those naming it on their command line
     * (initdb and pg_ctl name the data directory they work on; a RaceLab's own java is left out).
     */
    public static List<String> workingOn(Path dir) {
        String under = dir.toString();
        List<String> found = new ArrayList<>();
        Set<Long> seen = new HashSet<>();
        for (ProcessHandle process : runningIn(dir)) {
            seen.add(process.pid());
            found.add(process.pid() + " " + process.info().commandLine().orElse("?"));
        }
        ProcessHandle.allProcesses().forEach(process -> process.info().commandLine().ifPresent(line -> {
            if (line.contains(under) && !line.contains("racelab.jar") && !seen.contains(process.pid())) {
                found.add(process.pid() + " " + line);
            }
        }));
        return found;
    }

    /**
     * Kills every process running under {@code dir} (a test's own servers, left by a child it
     * killed) and waits a little for each to end: for a test's {@code finally}, pass or fail.
     */
    public static void killAllIn(Path dir) {
        for (ProcessHandle process : runningIn(dir)) {
            process.destroyForcibly();
            try {
                process.onExit().get(10, TimeUnit.SECONDS);
            } catch (Exception ignored) {
                // Killed; the kernel reaps it.
            }
        }
    }

    /** The local ports of the TCP sockets process {@code pid} has open. */
    public static Set<Integer> localPorts(long pid) throws IOException {
        Set<String> inodes = new HashSet<>();
        try (Stream<Path> fds = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
            for (Path fd : fds.toList()) {
                try {
                    String target = Files.readSymbolicLink(fd).toString();
                    if (target.startsWith("socket:[")) {
                        inodes.add(target.substring("socket:[".length(), target.length() - 1));
                    }
                } catch (IOException closedMeanwhile) {
                    // Gone.
                }
            }
        }
        Set<Integer> ports = new HashSet<>();
        for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            Path file = Path.of(table);
            if (!Files.exists(file)) {
                continue;
            }
            List<String> lines = Files.readAllLines(file);
            for (String line : lines.subList(1, lines.size())) {
                String[] fields = line.trim().split("\\s+");
                if (fields.length > 9 && inodes.contains(fields[9])) {
                    String local = fields[1];
                    ports.add(Integer.parseInt(local.substring(local.lastIndexOf(':') + 1), 16));
                }
            }
        }
        return ports;
    }
}
