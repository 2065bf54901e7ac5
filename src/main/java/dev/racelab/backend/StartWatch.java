package dev.racelab.backend;

import dev.racelab.tasks.Background;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Ends zonky's wait for a PostgreSQL that will never answer.
 *
 * <p>zonky starts the server with {@code pg_ctl -w start} and then, whatever {@code pg_ctl} says,
 * tries to connect for its whole start-up wait (a minute) before it gives up. {@code pg_ctl}
 * itself knows within a fraction of a second: it ends when the server is ready, or as soon as the
 * server has stopped. So from {@link #begin} (zonky calls it just before {@code pg_ctl}) a thread,
 * {@code postgres-start-watch}, looks every few milliseconds for a process of ours working on
 * the data directory ({@code pg_ctl}, or the server while {@code pg_ctl} is its parent). Once
 * there is none, and no live server is named in {@code postmaster.pid}, the start has failed: it
 * interrupts the starting thread, which ends zonky's wait (zonky then returns early, and the
 * caller asks {@link #gaveUp}). A start that succeeds always has its server alive, so it is never
 * interrupted.
 *
 * <p>Threads: {@link #begin}, {@link #end} and {@link #gaveUp} are called by the starting thread;
 * the watch thread only reads the process table and the pid file, and interrupts.
 */
final class StartWatch {

    private static final long LOOK_EVERY_MILLIS = 20;
    /** How long pg_ctl may take to appear at all, on a machine that is very busy. */
    private static final long APPEAR_WITHIN_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final Path data;
    private final String dataName;
    private final Thread starter;
    private volatile boolean ended;
    private volatile boolean gaveUp;
    private Future<?> watch;

    StartWatch(Path data) {
        this.data = data;
        this.dataName = data.toString();
        this.starter = Thread.currentThread();
    }

    /** Starts watching; called on the starting thread right before pg_ctl starts. */
    void begin() {
        watch = Background.call("postgres-start-watch", () -> {
            watch();
            return null;
        });
    }

    /** Stops watching, and clears the interrupt the watch may have sent. */
    void end() {
        ended = true;
        if (watch != null) {
            boolean interrupted = false;
            while (true) {
                try {
                    watch.get();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    // The watch only looks at processes and files; what it threw ends it, and the start goes on.
                    System.err.println("racelab: the watch over PostgreSQL's start failed:");
                    e.getCause().printStackTrace();
                    break;
                }
            }
            if (interrupted && !gaveUp) {
                Thread.currentThread().interrupt();
            }
        }
        if (gaveUp) {
            Thread.interrupted();
        }
    }

    /** Whether the start failed and the watch ended zonky's wait. */
    boolean gaveUp() {
        return gaveUp;
    }

    private void watch() {
        long began = System.nanoTime();
        boolean seen = false;
        while (!ended) {
            boolean working = ProcessHandle.current().descendants().anyMatch(this::worksOnData);
            seen |= working;
            if (!working && (seen || System.nanoTime() - began > APPEAR_WITHIN_NANOS) && !serverAlive(data)) {
                gaveUp = true;
                // Until the starter has left zonky: an interrupt it swallowed must not leave it waiting.
                while (!ended) {
                    starter.interrupt();
                    pause();
                }
                return;
            }
            pause();
        }
    }

    private boolean worksOnData(ProcessHandle process) {
        return process.info().commandLine().map(line -> line.contains(dataName)).orElse(false);
    }

    /** Whether the {@code postmaster.pid} in {@code data} names a process that is alive. */
    static boolean serverAlive(Path data) {
        try {
            List<String> lines = Files.readAllLines(data.resolve("postmaster.pid"), StandardCharsets.ISO_8859_1);
            String first = lines.isEmpty() ? "" : lines.get(0).strip();
            if (!first.matches("\\d{1,18}")) {
                return false;
            }
            return ProcessHandle.of(Long.parseLong(first)).map(ProcessHandle::isAlive).orElse(false);
        } catch (IOException noFile) {
            return false;
        }
    }

    private static void pause() {
        try {
            Thread.sleep(LOOK_EVERY_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * PostgreSQL's own reason a start failed, from what it wrote to {@code log} after {@code from}:
     * its last {@code FATAL} or {@code PANIC} line, with the {@code DETAIL} that follows, without
     * the time stamp; or pg_ctl's last line. Nothing if the log says nothing.
     */
    static Optional<String> reasonLogged(Path log, long from) {
        List<String> lines;
        try (InputStream in = Files.newInputStream(log)) {
            in.skipNBytes(Math.min(from, Files.size(log)));
            lines = new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().map(String::strip)
                    .filter(line -> !line.isEmpty()).toList();
        } catch (IOException unreadable) {
            return Optional.empty();
        }
        for (int i = lines.size() - 1; i >= 0; i--) {
            String line = lines.get(i);
            int at = Math.max(line.indexOf("FATAL:"), line.indexOf("PANIC:"));
            if (at >= 0) {
                String reason = line.substring(line.indexOf(':', at) + 1).strip();
                if (i + 1 < lines.size() && lines.get(i + 1).contains("DETAIL:")) {
                    String detail = lines.get(i + 1);
                    reason += ": " + detail.substring(detail.indexOf("DETAIL:") + "DETAIL:".length()).strip();
                }
                return Optional.of(reason);
            }
        }
        return lines.isEmpty() ? Optional.empty() : Optional.of(lines.get(lines.size() - 1));
    }
}
