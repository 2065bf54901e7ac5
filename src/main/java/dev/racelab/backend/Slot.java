package dev.racelab.backend;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A numbered directory an embedded server lives in, owned by one RaceLab process at a time.
 *
 * <p>Ownership is an OS file lock on {@code slot.lock}: it is released when the process ends,
 * however it ends. So a slot whose lock we get but which holds a server's pid file belonged to a
 * RaceLab that was killed: its server may still be running and is ours to stop. Several RaceLabs
 * at once (two windows, a test run beside the app) each take their own slot.
 */
final class Slot implements AutoCloseable {

    private static final int MAX_SLOTS = 16;

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
        FileChannel channel = FileChannel.open(dir.resolve("slot.lock"), StandardOpenOption.CREATE,
                StandardOpenOption.WRITE);
        try {
            FileLock lock = channel.tryLock();
            if (lock != null) {
                return Optional.of(new Slot(dir, channel, lock));
            }
        } catch (OverlappingFileLockException e) {
            // This JVM already owns it.
        }
        channel.close();
        return Optional.empty();
    }

    Path dir() {
        return dir;
    }

    /**
     * Stops a server left running by a RaceLab that was killed while it owned this slot.
     *
     * @param pidFile  where that server wrote its pid
     * @param command  a word its command line contains (to never kill a stranger who reused the pid)
     * @return whether a leftover server was found and stopped
     */
    boolean stopLeftover(Path pidFile, String command) throws IOException {
        if (!Files.exists(pidFile)) {
            return false;
        }
        String first = Files.readAllLines(pidFile).stream().findFirst().orElse("").strip();
        Optional<ProcessHandle> process = Optional.empty();
        try {
            process = ProcessHandle.of(Long.parseLong(first));
        } catch (NumberFormatException e) {
            // Not a pid file we understand: nothing to stop.
        }
        boolean ours = process.isPresent() && process.get().isAlive()
                && process.get().info().commandLine().orElse(process.get().info().command().orElse(""))
                        .contains(command);
        if (ours) {
            process.get().destroy();
            try {
                process.get().onExit().get(10, TimeUnit.SECONDS);
            } catch (Exception e) {
                process.get().destroyForcibly();
            }
        }
        Files.deleteIfExists(pidFile);
        return ours;
    }

    @Override
    public void close() throws IOException {
        try {
            lock.release();
        } finally {
            channel.close();
        }
    }
}
