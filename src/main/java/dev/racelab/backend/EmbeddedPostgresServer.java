package dev.racelab.backend;

import dev.racelab.engine.Service;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import io.zonky.test.db.postgres.util.LinuxUtils;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;

/**
 * Starts RaceLab's own PostgreSQL, with zonky's packaged binaries.
 *
 * <p>Binaries are unpacked once under {@code <home>/postgres/bin} and checked before every start
 * ({@link PostgresBinaries}: a damaged unpack is unpacked again). The cluster lives in a {@link
 * Slot} ({@code slot-N/data}); a new one is a copy of the cluster the build prepared ({@link
 * PreparedPostgres}), or, for a build without one, made by {@code initdb}. It is kept between starts
 * only so that later starts skip that: it holds nothing worth keeping, since every lab creates its objects in schema {@code
 * racelab} when they are missing and every run seeds and removes its own rows. So a cluster that
 * will not start (a wrong {@code PG_VERSION}, a broken {@code postgresql.conf}, an {@code initdb}
 * cut short) is removed and set up anew, once, with a note saying why; if a fresh one fails too,
 * the error is one line with PostgreSQL's own reason and the log to read.
 *
 * <p>zonky waits up to a minute for a server that will never answer; a {@link StartWatch} ends
 * that wait as soon as {@code pg_ctl} has given up. As root, zonky runs PostgreSQL through {@code
 * unshare} (PostgreSQL refuses to run as root otherwise).
 */
final class EmbeddedPostgresServer implements AutoCloseable {

    private static final Map<String, String> CONFIG = Map.of(
            "max_connections", "300",
            "fsync", "off",
            "full_page_writes", "off",
            "listen_addresses", "127.0.0.1");
    private static final int ATTEMPTS = 3;
    /**
     * How long a started server may take to answer. A start takes well under a second here; this
     * is for a machine that is very busy. zonky's own readiness check is bounded per attempt by
     * {@link #READY_CHECK_SECONDS} (it waits for ever on a server that accepts and never answers).
     */
    private static final Duration ANSWER_WITHIN = Duration.ofSeconds(30);
    private static final String READY_CHECK_SECONDS = "5";

    private final EmbeddedPostgres postgres;
    private final Slot slot;
    /** Stops the server if this JVM ends without doing so; held here, as its pipe must stay open while the server runs. */
    private final Optional<ServerGuard> guard;

    private EmbeddedPostgresServer(EmbeddedPostgres postgres, Slot slot) {
        this.postgres = postgres;
        this.slot = slot;
        this.guard = postmaster().flatMap(server -> ServerGuard.watch(server, slot.dir().resolveSibling("bin"),
                slot.dir().resolve("data"), "INT"));
    }

    /**
     * Starts RaceLab's PostgreSQL under {@code home}; its sessions' logins are bounded by {@code
     * login} (null: the default). {@code calledOff} is asked between the steps of the start (and the
     * starting thread is interrupted to make a wait end): once it says yes, the start stops where
     * it is, stops what it started, and fails.
     */
    static Postgres start(Path home, StartupListener listener, BooleanSupplier calledOff, Duration login)
            throws BackendException {
        boolean cannotRun = isRoot() && !LinuxUtils.isUnshareAvailable();
        if (calledOff.getAsBoolean()) {
            // Asking for unshare runs a process, which the call-off interrupts: its answer is not to be believed.
            throw calledOff(null);
        }
        if (cannotRun) {
            throw new BackendException(Service.POSTGRES, "Embedded PostgreSQL cannot run as root here: the unshare "
                    + "command is missing or not permitted. Run RaceLab as an ordinary user, or set RACELAB_PG_URL "
                    + "to an existing server.");
        }
        Path root = home.resolve("postgres");
        Slot slot = null;
        boolean settingUp = false;
        try {
            slot = Slot.acquire(root);
            Path data = slot.dir().resolve("data");
            slot.stopLeftovers("PostgreSQL", dir -> dir.resolve("data/postmaster.pid"), root.resolve("bin"),
                    dir -> dir.resolve("data"), note -> listener.progress(Service.POSTGRES, StartupListener.Stage.NOTE,
                            note));
            PostgresBinaries binaries = PostgresBinaries.under(root.resolve("bin"));
            EmbeddedPostgres postgres;
            // From the check to the record, one start at a time: another's unpack in progress
            // would look damaged and be removed under it.
            try (UnpackLock unpacking = UnpackLock.take(root.resolve("bin"), () -> listener.progress(Service.POSTGRES,
                    StartupListener.Stage.STARTING, "Waiting for another RaceLab to finish starting its PostgreSQL…"))) {
                binaries.removeIfDamaged().ifPresent(note ->
                        listener.progress(Service.POSTGRES, StartupListener.Stage.NOTE, note));
                settingUp = !Files.exists(data.resolve("PG_VERSION"));
                listener.progress(Service.POSTGRES, StartupListener.Stage.STARTING, settingUp
                        ? "Setting up embedded PostgreSQL (first start only, a few seconds)…"
                        : "Starting embedded PostgreSQL…");
                Optional<PreparedPostgres> prepared = binaries.prepared();
                ClusterCopy.Copy setUp = () -> prepared.isPresent() && prepared.get().copyClusterTo(data, calledOff);
                // A first start copies the cluster while it unpacks the binaries.
                ClusterCopy copying = settingUp ? ClusterCopy.begin(setUp) : null;
                try {
                    binaries.unpackIfMissing(calledOff);
                } finally {
                    if (copying != null) {
                        copying.await();
                    }
                }
                postgres = startHealing(root, binaries, data, setUp, slot.dir().resolve("postgres.log"), listener,
                        calledOff);
            }
            EmbeddedPostgresServer server = new EmbeddedPostgresServer(postgres, slot);
            PgAddress address = new PgAddress("127.0.0.1", postgres.getPort(), "postgres", "postgres", null, Map.of());
            try {
                return Postgres.open(address, server, "embedded PostgreSQL %s on 127.0.0.1:" + postgres.getPort(),
                        login);
            } catch (BackendException e) {
                server.close();
                throw e;
            }
        } catch (CalledOff e) {
            CalledOffStart.cleanUp(slot, settingUp);
            throw calledOff(e);
        } catch (StartFailed e) {
            stopHalfStarted(slot);
            closeQuietly(slot);
            throw new BackendException(Service.POSTGRES, "Embedded PostgreSQL could not start in " + root + ": "
                    + e.getMessage() + ". Set RACELAB_PG_URL to use an existing server instead.", e);
        } catch (IOException | RuntimeException e) {
            if (calledOff.getAsBoolean()) {
                // Interrupted in a wait (the unpack lock, initdb, pg_ctl) by the call-off.
                CalledOffStart.cleanUp(slot, settingUp);
                throw calledOff(e);
            }
            stopHalfStarted(slot);
            closeQuietly(slot);
            throw new BackendException(Service.POSTGRES, "Embedded PostgreSQL could not start in " + root + ": "
                    + Reasons.root(e) + ". Set RACELAB_PG_URL to use an existing server instead.", e);
        }
    }

    private static BackendException calledOff(Exception e) {
        return new BackendException(Service.POSTGRES, "The start of embedded PostgreSQL was called off: RaceLab is "
                + "shutting down", e);
    }

    /**
     * Starts the server in {@code data}; if a kept cluster will not start, removes it and starts a
     * fresh one (once), and tries a fresh one again on another port if that fails too.
     */
    private static EmbeddedPostgres startHealing(Path root, PostgresBinaries binaries, Path data, ClusterCopy.Copy setUp,
                                                 Path log, StartupListener listener, BooleanSupplier calledOff)
            throws IOException, StartFailed, CalledOff {
        boolean kept = Files.exists(data);
        for (int attempt = 1; ; attempt++) {
            long logFrom = Files.exists(log) ? Files.size(log) : 0;
            try {
                return startWatched(root, binaries, data, log, calledOff);
            } catch (IOException | RuntimeException e) {
                if (calledOff.getAsBoolean()) {
                    // Not the cluster's fault: it is neither healed nor tried again.
                    throw new CalledOff();
                }
                String why = StartWatch.reasonLogged(log, logFrom).orElseGet(() -> Reasons.root(e));
                if (attempt == ATTEMPTS) {
                    throw new StartFailed(why + " (see " + log + ")");
                }
                if (kept) {
                    listener.progress(Service.POSTGRES, StartupListener.Stage.NOTE, "RaceLab's embedded PostgreSQL "
                            + "would not start on its data in " + data + " (" + why + "); that data holds nothing "
                            + "to keep, so it was set up anew");
                    PostgresBinaries.deleteRecursively(data);
                    setUp.copy();
                    kept = false;
                }
            }
        }
    }

    private static EmbeddedPostgres startWatched(Path root, PostgresBinaries binaries, Path data, Path log,
                                                 BooleanSupplier calledOff) throws IOException, StartFailed, CalledOff {
        StartWatch watch = new StartWatch(data);
        EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder()
                .setPort(FreePort.find())
                .setDataDirectory(data)
                .setCleanDataDirectory(false)
                .setOverrideWorkingDirectory(root.resolve("bin").toFile())
                // zonky names the binaries' directory as RaceLab does, finds it unpacked, unpacks nothing.
                .setPgBinaryResolver(binaries.resolver())
                // A cluster initdb makes here is made as the build's prepared one is.
                .setLocaleConfig("locale", PreparedPostgres.LOCALE)
                .setPGStartupWait(ANSWER_WITHIN)
                .setConnectConfig("connectTimeout", READY_CHECK_SECONDS)
                .setConnectConfig("loginTimeout", READY_CHECK_SECONDS)
                .setConnectConfig("socketTimeout", READY_CHECK_SECONDS)
                // RaceLab stops the server itself, in order: a signalled run is judged
                // and recorded first, while its server still answers.
                .setRegisterShutdownHook(false)
                // Called after initdb, as pg_ctl is about to start the server.
                .setDataDirectoryCustomizer(directory -> watch.begin())
                .setOutputRedirector(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .setErrorRedirector(ProcessBuilder.Redirect.appendTo(log.toFile()));
        CONFIG.forEach(builder::setServerConfig);
        EmbeddedPostgres postgres;
        try {
            postgres = builder.start();
        } catch (IOException e) {
            if (calledOff.getAsBoolean()) {
                throw new CalledOff();
            }
            if (!watch.gaveUp() && StartWatch.serverAlive(data)) {
                // The server runs and does not answer (stopped, or starved of CPU): starting it
                // anew would not help, and zonky keeps its lock on the data directory. The caller
                // stops what runs there.
                throw new StartFailed("PostgreSQL started but did not answer within " + ANSWER_WITHIN.toSeconds()
                        + " s (is it stopped, or the machine overloaded?); see " + log);
            }
            throw e;
        } finally {
            watch.end();
        }
        if (watch.gaveUp() || calledOff.getAsBoolean()) {
            // zonky returned early, without a server (it gave up), or with one it no longer waited
            // for (the call-off's interrupt ends its wait): stop it, so that zonky also lets go of
            // its lock on the data. Its pg_ctl must not be cut short by that interrupt.
            Thread.interrupted();
            try {
                postgres.close();
            } catch (IOException ignored) {
                // There is no server to stop; the lock is released either way.
            }
            if (!watch.gaveUp()) {
                throw new CalledOff();
            }
            throw new IOException("PostgreSQL stopped while starting");
        }
        return postgres;
    }

    /** The server could not be started even in a fresh cluster: the message is PostgreSQL's reason and its log. */
    private static final class StartFailed extends Exception {
        StartFailed(String message) {
            super(message);
        }
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


    private static void closeQuietly(Slot slot) {
        if (slot != null) {
            try {
                slot.close();
            } catch (IOException ignored) {
                // The process is failing to start a server; the lock goes when it exits.
            }
        }
    }

    /** The running postmaster, as its pid file names it, if that is this slot's server. */
    private Optional<ProcessHandle> postmaster() {
        Path data = slot.dir().resolve("data");
        try {
            String first = Files.readAllLines(data.resolve("postmaster.pid")).get(0).strip();
            return ProcessHandle.of(Long.parseLong(first))
                    .filter(p -> Slot.isServerOfThisSlot(p, slot.dir().resolveSibling("bin"), data));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
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
        guard.ifPresent(ServerGuard::close);
        try {
            // A stopped server (SIGSTOP) would hold pg_ctl for its whole wait: let it run first.
            postmaster().ifPresent(Slot::resume);
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
