package dev.racelab.backend;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

/**
 * A numbered directory an embedded server lives in, owned by one RaceLab process at a time.
 *
 * <p>Ownership is an OS file lock on {@code slot.lock}: it is released when the process ends,
 * however it ends. So a slot whose lock we get but which holds a server's pid file belonged to a
 * RaceLab that was killed: its server may still be running and is ours to stop. Several RaceLabs
 * at once (two windows, a test run beside the app) each take their own slot; several killed at
 * once leave servers in several slots, so a start looks at every slot no live RaceLab holds
 * ({@link #stopLeftoversOfFreeSlots}), not only the one it takes.
 *
 * <p>A process never opens a slot's lock file while it holds that slot ({@link #HELD}): on Linux
 * and macOS, closing any channel on a file drops every lock the process holds on it, so merely
 * looking at a slot this process owns (a second server of the same kind in one JVM, as in the
 * tests) would hand it over to the next RaceLab, which would then stop its server as a leftover.
 */
final class Slot implements AutoCloseable {

    private static final int MAX_SLOTS = 16;
    /** The lock files of the slots this process holds, as absolute paths. */
    private static final java.util.Set<Path> HELD = java.util.concurrent.ConcurrentHashMap.newKeySet();

    private final Path dir;
    private final FileChannel channel;
    private final FileLock lock;

    private Slot(Path dir, FileChannel channel, FileLock lock) {
        this.dir = dir;
        this.channel = channel;
        this.lock = lock;
    }

    /** Takes the first free slot under {@code parent}. */
    static Slot acquire(Path parent) throws IOException {
        Files.createDirectories(parent);
        for (int n = 0; n < MAX_SLOTS; n++) {
            Optional<Slot> slot = tryAcquire(parent.resolve("slot-" + n));
            if (slot.isPresent()) {
                return slot.get();
            }
        }
        throw new IOException("all " + MAX_SLOTS + " server slots under " + parent + " are in use by other RaceLabs");
    }

    private static Optional<Slot> tryAcquire(Path dir) throws IOException {
        Files.createDirectories(dir);
        Path lockFile = lockFile(dir);
        if (!HELD.add(lockFile)) {
            return Optional.empty();  // this process holds it: not even opened, see above
        }
        try {
            FileChannel channel = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            try {
                FileLock lock = channel.tryLock();
                if (lock != null) {
                    return Optional.of(new Slot(dir, channel, lock));
                }
            } catch (OverlappingFileLockException e) {
                // Held by this process after all (a path HELD did not know): closing this channel
                // would drop that lock, so it stays open.
                HELD.remove(lockFile);
                return Optional.empty();
            }
            channel.close();
        } catch (IOException | RuntimeException e) {
            HELD.remove(lockFile);
            throw e;
        }
        HELD.remove(lockFile);
        return Optional.empty();
    }

    Path dir() {
        return dir;
    }

    /** A slot's lock file, one spelling per file: the slot's directory exists by then. */
    private static Path lockFile(Path dir) throws IOException {
        return dir.toRealPath().resolve("slot.lock");
    }

    /**
     * Stops a server left running by a RaceLab that was killed while it owned this slot.
     *
     * <p>A pid file is only a hint: the process may be long gone and its pid reused by someone
     * else's program, or the file may be damaged. So the process is signalled only if it is
     * provably this slot's server: its executable lies under {@code binaries} (RaceLab's own copy
     * of the server) and it runs in {@code workingDirectory} (servers change into their data
     * directory). A process that cannot be proven ours is left alone; the pid file goes either way,
     * since it describes nothing this slot runs.
     *
     * @return what was found, for the start-up progress
     */
    Leftover stopLeftover(Path pidFile, Path binaries, Path workingDirectory) throws IOException {
        if (!Files.exists(pidFile)) {
            return Leftover.NONE;
        }
        OptionalLong pid = readPid(pidFile);
        Optional<ProcessHandle> process = pid.isPresent() ? ProcessHandle.of(pid.getAsLong()) : Optional.empty();
        Leftover found;
        if (pid.isEmpty()) {
            found = Leftover.DAMAGED;
        } else if (process.isEmpty() || !process.get().isAlive()) {
            found = Leftover.STALE;
        } else if (!isServerOfThisSlot(process.get(), binaries, workingDirectory)) {
            found = Leftover.STRANGER;
        } else {
            resume(process.get());
            process.get().destroy();
            try {
                process.get().onExit().get(10, TimeUnit.SECONDS);
            } catch (Exception e) {
                process.get().descendants().forEach(ProcessHandle::destroyForcibly);
                process.get().destroyForcibly();
            }
            found = Leftover.STOPPED;
        }
        Files.deleteIfExists(pidFile);
        return found;
    }

    /**
     * Stops the servers left running in every other slot beside this one that no live RaceLab
     * holds, as {@link #stopLeftover} does in this one. Each such slot is locked while it is looked
     * at, so a RaceLab starting meanwhile takes another slot, and a slot whose lock is held (by a
     * live RaceLab, or another start looking at it now) is never touched: its server is in use.
     *
     * @param pidFile          where a slot keeps its server's pid file, given the slot's directory
     * @param workingDirectory the directory a slot's server runs in, given the slot's directory
     * @return what was found in each slot looked at, by its directory, for the start-up progress
     */
    Map<Path, Leftover> stopLeftoversOfFreeSlots(UnaryOperator<Path> pidFile, Path binaries,
                                                 UnaryOperator<Path> workingDirectory) {
        Map<Path, Leftover> found = new LinkedHashMap<>();
        for (int n = 0; n < MAX_SLOTS; n++) {
            Path other = dir.resolveSibling("slot-" + n);
            if (other.equals(dir) || !Files.exists(other.resolve("slot.lock"))) {
                continue;
            }
            try {
                Optional<Slot> free = tryAcquire(other);
                if (free.isPresent()) {
                    try (Slot slot = free.get()) {
                        found.put(other, slot.stopLeftover(pidFile.apply(other), binaries,
                                workingDirectory.apply(other)));
                    }
                }
            } catch (IOException unreadable) {
                // That slot's leftover, if any, waits for a later start: this start goes on.
            }
        }
        return found;
    }

    /**
     * Stops the leftovers of one kind of server ({@code what}: "Redis", "PostgreSQL standby") in
     * this slot ({@link #stopLeftover}) and in every free one ({@link #stopLeftoversOfFreeSlots}),
     * and hands {@code note} a sentence for each it found ({@link #describe}).
     *
     * @param pidFile          where a slot keeps the server's pid file, given the slot's directory
     * @param workingDirectory the directory the server runs in, given the slot's directory
     */
    void stopLeftovers(String what, UnaryOperator<Path> pidFile, Path binaries, UnaryOperator<Path> workingDirectory,
                       java.util.function.Consumer<String> note) throws IOException {
        Map<Path, Leftover> found = new LinkedHashMap<>();
        found.put(dir, stopLeftover(pidFile.apply(dir), binaries, workingDirectory.apply(dir)));
        found.putAll(stopLeftoversOfFreeSlots(pidFile, binaries, workingDirectory));
        found.forEach((slotDir, leftover) -> describe(leftover, what, slotDir, pidFile.apply(slotDir)).ifPresent(note));
    }

    /**
     * Lets {@code server} and its processes run again if they were stopped (SIGSTOP, a debugger): a
     * stopped server cannot shut down, and a signal to stop it would wait, pending, for ever. Waits
     * at most two seconds for {@code kill}; harmless to a server that runs.
     */
    static void resume(ProcessHandle server) {
        List<ProcessHandle> all = new ArrayList<>(List.of(server));
        server.descendants().forEach(all::add);
        signal("-CONT", all);
    }

    /**
     * Sends {@code signal} ({@code -STOP}, {@code -CONT}, …) to {@code processes} with the
     * {@code kill} command, waiting at most two seconds for it; without one, nothing is sent.
     */
    static void signal(String signal, List<ProcessHandle> processes) {
        if (processes.isEmpty()) {
            return;
        }
        List<String> command = new ArrayList<>(List.of("kill", signal));
        processes.forEach(p -> command.add(String.valueOf(p.pid())));
        try {
            Process kill = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!kill.waitFor(2, TimeUnit.SECONDS)) {
                kill.destroyForcibly();
            }
        } catch (IOException e) {
            // No kill command here: the caller goes on the way Java can (a stopped process is
            // then stopped the hard way, if at all).
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** What {@link #stopLeftover} found in a slot's pid file. */
    enum Leftover {
        /** No pid file: the last server here stopped cleanly. */
        NONE,
        /** A pid file that names no process any more. */
        STALE,
        /** A pid file that is not a pid file (cut short, garbled). */
        DAMAGED,
        /** The pid now belongs to another program, which was left alone. */
        STRANGER,
        /** This slot's server was still running, and was stopped. */
        STOPPED
    }

    /**
     * What to tell the user about {@code found} in slot {@code slotDir}, for {@code server}'s pid file
     * {@code pidFile}; nothing if all was well.
     */
    static Optional<String> describe(Leftover found, String server, Path slotDir, Path pidFile) {
        return Optional.ofNullable(switch (found) {
            case NONE, STALE -> null;
            case STOPPED -> "Stopped a " + server + " left running by an earlier RaceLab ("
                    + slotDir.getFileName() + ")";
            case DAMAGED -> "Removed a damaged pid file, " + pidFile;
            case STRANGER -> "The pid file " + pidFile + " named a process that is not RaceLab's " + server
                    + "; it was left alone and the file removed";
        });
    }

    /** The pid on a pid file's first line: ASCII digits only, anything else is damage. */
    private static OptionalLong readPid(Path pidFile) throws IOException {
        byte[] bytes = Files.readAllBytes(pidFile);
        int end = 0;
        while (end < bytes.length && end < 19 && bytes[end] >= '0' && bytes[end] <= '9') {
            end++;
        }
        boolean lineEnds = end == bytes.length || bytes[end] == '\n' || bytes[end] == '\r';
        if (end == 0 || !lineEnds) {
            return OptionalLong.empty();
        }
        long pid = Long.parseLong(new String(bytes, 0, end, StandardCharsets.US_ASCII));
        return pid > 1 ? OptionalLong.of(pid) : OptionalLong.empty();
    }

    /**
     * Whether {@code process} runs RaceLab's copy of the server from {@code binaries} in {@code
     * workingDirectory}. Where the system cannot tell a process's executable or working directory,
     * the answer is no: better a leftover server than someone else's program stopped.
     */
    static boolean isServerOfThisSlot(ProcessHandle process, Path binaries, Path workingDirectory) {
        Optional<String> executable = process.info().command();
        try {
            if (executable.isEmpty() || !Files.exists(binaries)
                    || !Path.of(executable.get()).toRealPath().startsWith(binaries.toRealPath())) {
                return false;
            }
            Path cwd = Path.of("/proc", Long.toString(process.pid()), "cwd");
            if (Files.exists(cwd)) {
                return Files.isSameFile(cwd.toRealPath(), workingDirectory.toRealPath());
            }
        } catch (IOException unreadable) {
            return false;
        }
        // No /proc (macOS, Windows): the server names its directory on its command line.
        return process.info().commandLine().map(line -> line.contains(workingDirectory.toString())).orElse(false);
    }

    @Override
    public void close() throws IOException {
        try {
            lock.release();
        } finally {
            try {
                channel.close();
            } finally {
                HELD.remove(lockFile(dir));
            }
        }
    }
}
