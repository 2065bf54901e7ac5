package dev.racelab.backend;

import dev.racelab.engine.Service;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisException;
import redis.embedded.core.ExecutableProvider;
import redis.embedded.model.OsArchitecture;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Starts RaceLab's own Redis from the binary packaged in embedded-redis.
 *
 * <p>We run the binary ourselves rather than through the library's wrapper so that we own the
 * process: its pid goes to the slot's pid file, its output to the slot's log, and it is started
 * with saving switched off ({@code save ""}, {@code appendonly no}) so it never writes a dump or
 * hangs on shutdown. The binary is copied out under {@code <home>/redis/bin} on first use, and
 * again whenever the copy there differs from the packaged one (cut short by a full disk, damaged):
 * every start compares the two, which costs a few milliseconds.
 */
final class EmbeddedRedisServer implements AutoCloseable {

    private static final long READY_TIMEOUT_MILLIS = 10_000;

    private final Process process;
    /** Stops the server if this JVM ends without doing so; held here, as its pipe must stay open while the server runs. */
    private final Optional<ServerGuard> guard;
    private final Slot slot;

    private EmbeddedRedisServer(Process process, Slot slot) {
        this.process = process;
        this.slot = slot;
        this.guard = ServerGuard.watch(process.toHandle(), slot.dir().resolveSibling("bin"), slot.dir(), "TERM");
    }

    /**
     * Starts RaceLab's Redis under {@code home}, its logins bounded by {@code login} (null: the
     * default). Once {@code calledOff} says yes (the starting
     * thread is interrupted to end its wait), the start stops the server it started and fails.
     */
    static Redis start(Path home, StartupListener listener, BooleanSupplier calledOff, Duration login)
            throws BackendException {
        Path root = home.resolve("redis");
        Slot slot = null;
        EmbeddedRedisServer starting = null;
        try {
            slot = Slot.acquire(root);
            Path pidFile = slot.dir().resolve("redis.pid");
            slot.stopLeftovers("Redis", dir -> dir.resolve("redis.pid"), root.resolve("bin"), dir -> dir,
                    note -> listener.progress(Service.REDIS, StartupListener.Stage.NOTE, note));
            listener.progress(Service.REDIS, StartupListener.Stage.STARTING, "Starting embedded Redis…");
            Path binary = unpack(root.resolve("bin"), listener);
            for (int attempt = 0; ; attempt++) {
                int port = FreePort.find();
                String password = password();
                Process process = new ProcessBuilder(List.of(binary.toString(), "-",
                        "--port", String.valueOf(port), "--bind", "127.0.0.1", "--protected-mode", "yes",
                        "--save", "", "--appendonly", "no", "--daemonize", "no",
                        "--dir", slot.dir().toString(), "--logfile", ""))
                        .redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.appendTo(slot.dir().resolve("redis.log").toFile()))
                        .start();
                starting = new EmbeddedRedisServer(process, slot);
                writePid(pidFile, process.pid());
                requirePassword(process, password);
                RedisAddress address = new RedisAddress("127.0.0.1", port, 0, null, password, false);
                if (awaitReady(process, address) && !calledOff.getAsBoolean()) {
                    try {
                        return Redis.open(address, starting, "embedded Redis %s on 127.0.0.1:" + port, login);
                    } catch (BackendException e) {
                        starting.close();
                        throw e;
                    }
                }
                if (calledOff.getAsBoolean()) {
                    // Left to the catch below, which clears the interrupt before it stops the server
                    // (and so waits for it to go) and removes its pid file.
                    throw new IOException("RaceLab is shutting down");
                }
                starting.stopProcess();
                starting = null;
                if (attempt == 2) {
                    throw new IOException("it did not answer within " + READY_TIMEOUT_MILLIS / 1000
                            + " s (see " + slot.dir().resolve("redis.log") + ")");
                }
            }
        } catch (IOException | RuntimeException e) {
            if (starting != null) {
                // Started, and then the start failed or was called off: the server goes with it.
                Thread.interrupted();
                starting.stopProcess();
                deleteQuietly(slot.dir().resolve("redis.pid"));
            }
            closeQuietly(slot);
            if (calledOff.getAsBoolean()) {
                throw new BackendException(Service.REDIS, "The start of embedded Redis was called off: RaceLab is "
                        + "shutting down", e);
            }
            throw new BackendException(Service.REDIS, "Embedded Redis could not start in " + root + ": "
                    + e.getMessage() + ". Set RACELAB_REDIS_URL to use an existing server instead.", e);
        }
    }

    /** 32 random bytes, URL-safe Base64: a password nobody guesses, never shown. */
    private static String password() {
        byte[] bytes = new byte[32];
        new java.security.SecureRandom().nextBytes(bytes);
        return java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    /**
     * Gives the server's {@code default} user a password of RaceLab's making, through its standard
     * input (never its command line, which other users of the machine may read): a class's own
     * user ({@code dev.racelab.classroom}) could otherwise become {@code default} with any
     * password, as {@code AUTH} cannot be denied. The password lives in the server's address only.
     */
    private static void requirePassword(Process process, String password) throws IOException {
        try (var config = process.getOutputStream()) {
            config.write(("requirepass " + password + "\n").getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        }
    }

    /** Writes the pid file whole or not at all: a reader never finds it empty or half written. */
    static void writePid(Path pidFile, long pid) throws IOException {
        Path partial = Files.createTempFile(pidFile.getParent(), "redis.pid", ".part");
        try {
            Files.writeString(partial, pid + "\n");
            Files.move(partial, pidFile, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(partial);
        }
    }

    /** Copies the packaged binary for this machine out of the jar, unless an identical copy is there. */
    static Path unpack(Path bin, StartupListener listener) throws IOException {
        Map<OsArchitecture, String> binaries = ExecutableProvider.newProvidedVersionsMap();
        String resource = binaries.get(OsArchitecture.detectOSandArchitecture());
        if (resource == null) {
            throw new IOException("there is no packaged Redis for " + System.getProperty("os.name") + " "
                    + System.getProperty("os.arch"));
        }
        Path target = bin.resolve(resource.substring(resource.lastIndexOf('/') + 1));
        if (Files.exists(target)) {
            if (Files.isExecutable(target) && sameAsPackaged(resource, target)) {
                return target;
            }
            listener.progress(Service.REDIS, StartupListener.Stage.NOTE, "The embedded Redis binary " + target
                    + " was damaged (" + Files.size(target) + " bytes, not as packaged); it was copied out again");
        }
        Files.createDirectories(bin);
        Path partial = Files.createTempFile(bin, "redis-server", ".part");
        try {
            try (InputStream in = EmbeddedRedisServer.class.getResourceAsStream(resource)) {
                if (in == null) {
                    throw new IOException("the packaged Redis binary " + resource + " is missing from the jar");
                }
                Files.copy(in, partial, StandardCopyOption.REPLACE_EXISTING);
            }
            if (!partial.toFile().setExecutable(true, true)) {
                throw new IOException("cannot make " + partial + " executable");
            }
            Files.move(partial, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            // A copy cut short (a full disk, a start called off) leaves no half binary behind.
            Files.deleteIfExists(partial);
        }
        return target;
    }

    /** Whether {@code copy} holds exactly the packaged {@code resource}, compared a block at a time. */
    private static boolean sameAsPackaged(String resource, Path copy) throws IOException {
        try (InputStream packaged = EmbeddedRedisServer.class.getResourceAsStream(resource);
             InputStream copied = Files.newInputStream(copy)) {
            if (packaged == null) {
                return false;
            }
            byte[] expected = new byte[64 * 1024];
            byte[] found = new byte[expected.length];
            while (true) {
                int n = packaged.readNBytes(expected, 0, expected.length);
                int m = copied.readNBytes(found, 0, found.length);
                if (n != m || !Arrays.equals(expected, 0, n, found, 0, m)) {
                    return false;
                }
                if (n < expected.length) {
                    return true;
                }
            }
        }
    }

    static boolean awaitReady(Process process, RedisAddress address) throws IOException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(READY_TIMEOUT_MILLIS);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                return false;
            }
            try (Jedis jedis = new Jedis(address.host(), address.port(), 500)) {
                if (address.hasPassword()) {
                    jedis.auth(address.password());
                }
                if ("PONG".equals(jedis.ping())) {
                    return true;
                }
            } catch (JedisException notYet) {
                try {
                    Thread.sleep(20);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted while waiting for Redis to start");
                }
            }
        }
        return false;
    }

    private void stopProcess() {
        guard.ifPresent(ServerGuard::close);
        RedisNode.stop(process);
    }

    private static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException ignored) {
            // A pid file naming no process is only a hint: the next start ignores it.
        }
    }

    private static void closeQuietly(Slot slot) {
        if (slot != null) {
            try {
                slot.close();
            } catch (IOException ignored) {
                // The lock goes when the process exits.
            }
        }
    }

    @Override
    public void close() throws IOException {
        try {
            stopProcess();
            Files.deleteIfExists(slot.dir().resolve("redis.pid"));
        } finally {
            slot.close();
        }
    }
}
