package dev.racelab.backend;

import dev.racelab.engine.Service;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import io.zonky.test.db.postgres.util.LinuxUtils;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Starts RaceLab's own PostgreSQL, with zonky's packaged binaries.
 *
 * <p>Binaries are unpacked once under {@code <home>/postgres/bin}; the cluster lives in a {@link
 * Slot} and is kept between starts, so only the first start pays for {@code initdb}. As root,
 * zonky runs PostgreSQL through {@code unshare} (PostgreSQL refuses to run as root otherwise).
 */
final class EmbeddedPostgresServer implements AutoCloseable {

    private static final Map<String, String> CONFIG = Map.of(
            "max_connections", "300",
            "fsync", "off",
            "full_page_writes", "off",
            "listen_addresses", "127.0.0.1");

    private final EmbeddedPostgres postgres;
    private final Slot slot;

    private EmbeddedPostgresServer(EmbeddedPostgres postgres, Slot slot) {
        this.postgres = postgres;
        this.slot = slot;
    }

    static Postgres start(Path home, StartupListener listener) throws BackendException {
        if (isRoot() && !LinuxUtils.isUnshareAvailable()) {
            throw new BackendException(Service.POSTGRES, "Embedded PostgreSQL cannot run as root here: the unshare "
                    + "command is missing or not permitted. Run RaceLab as an ordinary user, or set RACELAB_PG_URL "
                    + "to an existing server.");
        }
        Path root = home.resolve("postgres");
        Slot slot = null;
        try {
            slot = Slot.acquire(root);
            Path data = slot.dir().resolve("data");
            Map<Path, Slot.Leftover> leftovers = new LinkedHashMap<>();
            leftovers.put(slot.dir(), slot.stopLeftover(data.resolve("postmaster.pid"), root.resolve("bin"), data));
            leftovers.putAll(slot.stopLeftoversOfFreeSlots(dir -> dir.resolve("data/postmaster.pid"),
                    root.resolve("bin"), dir -> dir.resolve("data")));
            leftovers.forEach((dir, leftover) -> Slot.describe(leftover, "PostgreSQL", dir,
                    dir.resolve("data/postmaster.pid")).ifPresent(note ->
                    listener.progress(Service.POSTGRES, StartupListener.Stage.NOTE, note)));
            boolean fresh = !Files.exists(data.resolve("PG_VERSION"));
            listener.progress(Service.POSTGRES, StartupListener.Stage.STARTING, fresh
                    ? "Setting up embedded PostgreSQL (first start only, a few seconds)…"
                    : "Starting embedded PostgreSQL…");
            EmbeddedPostgres postgres = startOnFreePort(root, data, slot.dir().resolve("postgres.log"));
            EmbeddedPostgresServer server = new EmbeddedPostgresServer(postgres, slot);
            PgAddress address = new PgAddress("127.0.0.1", postgres.getPort(), "postgres", "postgres", null, Map.of());
            try {
                return Postgres.open(address, server, "embedded PostgreSQL %s on 127.0.0.1:" + postgres.getPort());
            } catch (BackendException e) {
                server.close();
                throw e;
            }
        } catch (IOException | RuntimeException e) {
            stopHalfStarted(slot);
            closeQuietly(slot);
            throw new BackendException(Service.POSTGRES, "Embedded PostgreSQL could not start in " + root + ": "
                    + reason(e) + ". Set RACELAB_PG_URL to use an existing server instead.", e);
        }
    }

    private static EmbeddedPostgres startOnFreePort(Path root, Path data, Path log) throws IOException {
        IOException last = null;
        for (int attempt = 0; attempt < 3; attempt++) {
            try {
                EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder()
                        .setPort(FreePort.find())
                        .setDataDirectory(data)
                        .setCleanDataDirectory(false)
                        .setOverrideWorkingDirectory(root.resolve("bin").toFile())
                        .setPGStartupWait(Duration.ofSeconds(60))
                        // RaceLab stops the server itself, in order: a signalled run is judged
                        // and recorded first, while its server still answers.
                        .setRegisterShutdownHook(false)
                        .setOutputRedirector(ProcessBuilder.Redirect.appendTo(log.toFile()))
                        .setErrorRedirector(ProcessBuilder.Redirect.appendTo(log.toFile()));
                CONFIG.forEach(builder::setServerConfig);
                return builder.start();
            } catch (IOException e) {
                last = e;
            }
        }
        throw last;
    }

    /** A start that failed late (say, the JVM began shutting down) may have left the server running. */
    private static void stopHalfStarted(Slot slot) {
        if (slot != null) {
            try {
                Path data = slot.dir().resolve("data");
                slot.stopLeftover(data.resolve("postmaster.pid"), slot.dir().getParent().resolve("bin"), data);
            } catch (IOException ignored) {
                // The next start stops it.
            }
        }
    }

    private static boolean isRoot() {
        return "root".equals(System.getProperty("user.name"));
    }

    private static String reason(Exception e) {
        Throwable cause = e;
        while (cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage().strip();
    }

    private static void closeQuietly(Slot slot) {
        if (slot != null) {
            try {
                slot.close();
            } catch (IOException ignored) {
                // The process is failing to start a server; the lock goes when it exits.
            }
        }
    }

    /**
     * Stops the server with {@code pg_ctl}, through zonky, which also lets go of its own lock on the
     * data directory. A server already gone (its postmaster killed) makes {@code pg_ctl} fail, and
     * zonky would log that as an error with a stack trace; its logger is off ({@code
     * simplelogger.properties}): whatever lost the server has said so in a line of its own. A server
     * {@code pg_ctl} could not stop is stopped here, as the next start would stop a leftover.
     */
    @Override
    public void close() throws IOException {
        try {
            postgres.close();
        } finally {
            try {
                Path data = slot.dir().resolve("data");
                slot.stopLeftover(data.resolve("postmaster.pid"), slot.dir().resolveSibling("bin"), data);
            } finally {
                slot.close();
            }
        }
    }
}
