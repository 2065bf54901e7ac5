package dev.racelab.backend;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * What a PostgreSQL start called off half-way leaves running, stopped, and what it left half-made,
 * removed: pg_ctl and the postmaster it is starting, initdb and the servers it runs, a cluster
 * initdb did not finish.
 *
 * <p>They are found by the slot's data directory on their command line (initdb, pg_ctl and the
 * postmaster name it), with whatever initdb and pg_ctl have started (initdb's {@code postgres
 * --check}, {@code --boot} and {@code --single} name no data directory), among all processes
 * rather than this one's descendants: pg_ctl forks the
 * postmaster, which is orphaned when pg_ctl ends or is killed, and one forked just as pg_ctl was
 * killed would be missed. A process is taken for this start's only if it descends from this
 * process or runs RaceLab's binaries of this slot's home: the slot is held, so no other RaceLab
 * works on its data. A postmaster is asked for an immediate shutdown (it removes its pid file);
 * the rest are killed. Runs on the starting thread, whose interrupt (the call-off's) is
 * cleared first: stopping must not be cut short.
 */
final class CalledOffStart {

    private static final long STOP_WITHIN_SECONDS = 10;

    private CalledOffStart() {
    }

    /** Stops what works on {@code slot}'s data, removes a cluster that was being set up, lets the slot go. */
    static void cleanUp(Slot slot, boolean settingUp) {
        Thread.interrupted();
        if (slot == null) {
            return;
        }
        Path data = slot.dir().resolve("data");
        Path bin = slot.dir().resolveSibling("bin");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(STOP_WITHIN_SECONDS);
        List<ProcessHandle> working;
        // Until none is left: one may be starting another (initdb its servers, pg_ctl the postmaster).
        while (!(working = withTheirChildren(workingOn(data, bin))).isEmpty() && System.nanoTime() < deadline) {
            for (ProcessHandle process : working) {
                if (postmaster(process)) {
                    Slot.resume(process);
                    quit(process);
                } else {
                    process.destroyForcibly();
                }
            }
            for (ProcessHandle process : working) {
                try {
                    process.onExit().get(postmaster(process) ? 5 : 1, TimeUnit.SECONDS);
                } catch (Exception stillThere) {
                    process.destroyForcibly();
                }
            }
        }
        try {
            // A server killed outright leaves its pid file: said stale and removed here, not by the next start.
            slot.stopLeftover(data.resolve("postmaster.pid"), bin, data);
        } catch (IOException ignored) {
            // The next start looks at it again.
        }
        if (settingUp && Files.exists(data)) {
            try {
                PostgresBinaries.deleteRecursively(data);
            } catch (IOException e) {
                // The next start finds a cluster that will not start, and sets it up anew.
            }
        }
        try {
            slot.close();
        } catch (IOException ignored) {
            // The lock goes with this process.
        }
    }

    /**
     * Asks a postmaster for an immediate shutdown (SIGQUIT): one still starting (recovering, say)
     * would finish its start before a smart one. It removes its pid file; a kept cluster recovers
     * at its next start, as after a crash, which takes a moment. Without a kill command, SIGTERM.
     */
    private static void quit(ProcessHandle postmaster) {
        try {
            Process kill = new ProcessBuilder("kill", "-QUIT", String.valueOf(postmaster.pid()))
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (kill.waitFor(2, TimeUnit.SECONDS) && kill.exitValue() == 0) {
                return;
            }
        } catch (IOException e) {
            // No kill command: stopped the way Java can.
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        postmaster.destroy();
    }

    /** This start's processes working on {@code data}: see the class comment. */
    private static List<ProcessHandle> workingOn(Path data, Path bin) {
        String named = data.toString();
        String ours = realPath(bin);
        return ProcessHandle.allProcesses()
                .filter(p -> p.info().commandLine().map(line -> line.contains(named)).orElse(false))
                .filter(p -> descendsFromThis(p) || p.info().command().map(c -> c.startsWith(ours)).orElse(false))
                .toList();
    }

    /**
     * {@code found} and every process each has started, taken while the starters are frozen
     * (SIGSTOP): initdb runs {@code postgres --check}, {@code --boot} and {@code --single}, whose
     * command lines name no data directory, and one killed first would orphan them, or one left
     * running start another between the look and the kill. A postmaster is not frozen: it is asked
     * to quit, and its own processes go with it.
     */
    private static List<ProcessHandle> withTheirChildren(List<ProcessHandle> found) {
        List<ProcessHandle> starters = found.stream().filter(p -> !postmaster(p)).toList();
        Slot.signal("-STOP", starters);
        Set<ProcessHandle> all = new LinkedHashSet<>(found);
        for (ProcessHandle starter : starters) {
            starter.descendants().filter(p -> !postmaster(p)).forEach(all::add);
        }
        return List.copyOf(all);
    }

    private static boolean postmaster(ProcessHandle process) {
        return process.info().command().map(c -> c.endsWith("/postgres")).orElse(false)
                && process.info().commandLine().map(line -> line.contains(" -D ")).orElse(false);
    }

    private static boolean descendsFromThis(ProcessHandle process) {
        long self = ProcessHandle.current().pid();
        Optional<ProcessHandle> parent = process.parent();
        for (int depth = 0; parent.isPresent() && depth < 64; depth++) {
            if (parent.get().pid() == self) {
                return true;
            }
            parent = parent.get().parent();
        }
        return false;
    }

    private static String realPath(Path dir) {
        try {
            return dir.toRealPath().toString();
        } catch (IOException gone) {
            return dir.toAbsolutePath().toString();
        }
    }
}
