package dev.racelab.backend;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Held while one start checks, unpacks and records the embedded PostgreSQL binaries of a RaceLab
 * home, so that no other start, in this process or another, takes a half-done unpack for a
 * damaged one and removes it under the first (two test JVMs starting on a fresh home did: the
 * first's initdb was gone). An OS file lock on {@code <bin>/unpack.lock} keeps processes apart
 * and goes with a process however it ends; a lock in this process keeps its threads apart, so it
 * never holds two channels on that file (closing either would drop the file lock: see {@link Slot}).
 */
final class UnpackLock implements AutoCloseable {

    private static final ReentrantLock IN_PROCESS = new ReentrantLock();
    /** A start takes seconds; one this long is stuck (a stopped process), and waiting on would hang ours. */
    private static final Duration WAIT_AT_MOST = Duration.ofSeconds(90);
    private static final long POLL_MILLIS = 50;

    private final FileChannel channel;
    private final FileLock lock;

    private UnpackLock(FileChannel channel, FileLock lock) {
        this.channel = channel;
        this.lock = lock;
    }

    /**
     * Takes the lock of {@code bin}, waiting up to {@link #WAIT_AT_MOST} for whoever holds it;
     * {@code waiting} runs once first if someone does (to say so).
     *
     * @throws IOException if it was not had in time (the message says why), or the file failed
     */
    static UnpackLock take(Path bin, Runnable waiting) throws IOException {
        long deadline = System.nanoTime() + WAIT_AT_MOST.toNanos();
        boolean told = false;
        if (!IN_PROCESS.tryLock()) {
            waiting.run();
            told = true;
            try {
                if (!IN_PROCESS.tryLock(WAIT_AT_MOST.toNanos(), TimeUnit.NANOSECONDS)) {
                    throw new IOException(busy(bin));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while waiting for another start in " + bin, e);
            }
        }
        FileChannel channel = null;
        try {
            Files.createDirectories(bin);
            channel = FileChannel.open(bin.resolve("unpack.lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            FileLock lock;
            while ((lock = channel.tryLock()) == null) {
                if (!told) {
                    waiting.run();
                    told = true;
                }
                if (System.nanoTime() > deadline) {
                    throw new IOException(busy(bin));
                }
                Thread.sleep(POLL_MILLIS);
            }
            return new UnpackLock(channel, lock);
        } catch (InterruptedException e) {
            release(channel);
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting for another start in " + bin, e);
        } catch (IOException | RuntimeException e) {
            release(channel);
            throw e;
        }
    }

    /** Gives up a lock not had after all: the channel (if opened), then this process's lock. */
    private static void release(FileChannel channel) throws IOException {
        try {
            if (channel != null) {
                channel.close();
            }
        } finally {
            IN_PROCESS.unlock();
        }
    }

    private static String busy(Path bin) {
        return "another RaceLab has been starting its PostgreSQL from " + bin + " for over "
                + WAIT_AT_MOST.toSeconds() + " s (is it stopped?)";
    }

    @Override
    public void close() throws IOException {
        try {
            lock.release();
            channel.close();
        } finally {
            IN_PROCESS.unlock();
        }
    }
}
