package dev.racelab.backend;


import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * One Redis process of a topology RaceLab runs (a data server or a Sentinel), from the embedded
 * binary: run in its own folder ({@code --dir}, which Redis changes into), its pid in {@code
 * redis.pid} there, its output in {@code redis.log}, a {@link ServerGuard} to stop it if RaceLab's
 * JVM ends without doing so. It can be killed and started again with other arguments (a primary
 * brought back as a replica), frozen and thawed.
 */
final class RedisNode implements AutoCloseable {

    private final String name;
    private final Path binary;
    private final Path binaries;
    private final Path dir;
    private final int port;
    private Process process;
    private Optional<ServerGuard> guard = Optional.empty();

    RedisNode(String name, Path binary, Path binaries, Path dir, int port) {
        this.name = name;
        this.binary = binary;
        this.binaries = binaries;
        this.dir = dir;
        this.port = port;
    }

    String name() {
        return name;
    }

    int port() {
        return port;
    }

    Path dir() {
        return dir;
    }

    /** Starts the process with {@code arguments} after the binary, and waits until it answers {@code PING}. */
    synchronized void start(List<String> arguments) throws IOException {
        Files.createDirectories(dir);
        List<String> command = new ArrayList<>(List.of(binary.toString()));
        command.addAll(arguments);
        process = new ProcessBuilder(command)
                .directory(dir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("redis.log").toFile()))
                .start();
        guard = ServerGuard.watch(process.toHandle(), binaries, dir, "TERM");
        EmbeddedRedisServer.writePid(dir.resolve("redis.pid"), process.pid());
        if (!EmbeddedRedisServer.awaitReady(process, new RedisAddress("127.0.0.1", port, 0, null, null, false))) {
            throw new IOException(name + (process.isAlive() ? " did not answer in time" : " stopped while starting")
                    + " (see " + dir.resolve("redis.log") + ")");
        }
    }

    synchronized boolean alive() {
        return process != null && process.isAlive();
    }

    /** Kills the process at once (SIGKILL): a server that crashed. Waits until it is gone. */
    synchronized void kill() {
        if (process == null) {
            return;
        }
        guard.ifPresent(ServerGuard::close);
        guard = Optional.empty();
        process.destroyForcibly();
        try {
            process.waitFor(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Stops (SIGSTOP) or lets run again (SIGCONT) the process: a long pause, as a GC or a stalled VM makes. */
    synchronized void freeze(boolean frozen) {
        if (process != null && process.isAlive()) {
            Slot.signal(frozen ? "-STOP" : "-CONT", List.of(process.toHandle()));
        }
    }

    /**
     * Stops a Redis process as Redis stops: lets it run if frozen, SIGTERM, then SIGKILL if it is
     * still there 5 s later.
     */
    static void stop(Process process) {
        Slot.resume(process.toHandle());
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    /** Stops the process (SIGTERM, then SIGKILL after 5 s) and removes its pid file. */
    @Override
    public synchronized void close() {
        if (process != null) {
            guard.ifPresent(ServerGuard::close);
            guard = Optional.empty();
            stop(process);
        }
        try {
            Files.deleteIfExists(dir.resolve("redis.pid"));
        } catch (IOException ignored) {
            // The next start treats a pid file as a hint only.
        }
    }
}
