package dev.racelab.backend;

import io.zonky.test.db.postgres.util.LinuxUtils;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * One PostgreSQL server RaceLab runs itself, from the embedded binaries, with options zonky cannot
 * give (a standby's): {@code postgres -D data -p port -c …}, in its data directory, its output
 * appended to a log. As root it runs through {@code unshare -U}, as zonky runs its own (PostgreSQL
 * refuses to run as root). A {@link ServerGuard} stops it if RaceLab's JVM ends without doing so.
 */
final class PgProcess implements AutoCloseable {

    /** How long a fast shutdown may take before the server is killed. */
    private static final long STOP_SECONDS = 10;

    private final Process process;
    private final Path data;
    private final Path log;
    private final int port;
    private final Optional<ServerGuard> guard;
    /** Where this start's lines begin in the log. */
    private final long logFrom;

    private PgProcess(Process process, Path data, Path log, long logFrom, int port, Optional<ServerGuard> guard) {
        this.process = process;
        this.data = data;
        this.log = log;
        this.logFrom = logFrom;
        this.port = port;
        this.guard = guard;
    }

    /**
     * Starts the server of {@code data} on {@code port}; {@code binaries} is the folder RaceLab's
     * binaries are unpacked in (what the watchman checks the process by), {@code postgres} the
     * executable. Returns once the process runs; {@link #awaitAnswer} waits until it lets a login in.
     */
    static PgProcess start(Path postgres, Path binaries, Path data, int port, Map<String, String> config, Path log)
            throws IOException {
        List<String> command = new ArrayList<>();
        if ("root".equals(System.getProperty("user.name"))) {
            if (!LinuxUtils.isUnshareAvailable()) {
                throw new IOException("PostgreSQL cannot run as root here: the unshare command is missing or not "
                        + "permitted; run RaceLab as an ordinary user");
            }
            command.addAll(List.of("unshare", "-U"));
        }
        command.addAll(List.of(postgres.toString(), "-D", data.toString(), "-p", Integer.toString(port)));
        config.forEach((name, value) -> command.addAll(List.of("-c", name + "=" + value)));
        long logFrom = Files.exists(log) ? Files.size(log) : 0;
        Process process = new ProcessBuilder(command)
                .directory(data.toFile())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .start();
        Optional<ServerGuard> guard = ServerGuard.watch(process.toHandle(), binaries, data, "INT");
        return new PgProcess(process, data, log, logFrom, port, guard);
    }

    int port() {
        return port;
    }

    Path data() {
        return data;
    }

    ProcessHandle handle() {
        return process.toHandle();
    }

    boolean alive() {
        return process.isAlive();
    }

    /**
     * Waits until the server lets {@code user} in to database {@code postgres}, at most {@code
     * within}; asks {@code calledOff} between tries.
     *
     * @throws IOException naming the server's own reason (its log's last FATAL or PANIC line) if
     *                     it ended, or that it did not answer in time
     * @throws CalledOff   if {@code calledOff} said yes
     */
    void awaitAnswer(String what, Duration within, BooleanSupplier calledOff) throws IOException, CalledOff {
        long deadline = System.nanoTime() + within.toNanos();
        Properties props = new Properties();
        props.setProperty("user", "postgres");
        props.setProperty("connectTimeout", "2");
        props.setProperty("loginTimeout", "2");
        props.setProperty("socketTimeout", "5");
        String url = "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
        while (true) {
            if (calledOff.getAsBoolean()) {
                throw new CalledOff();
            }
            if (!process.isAlive()) {
                throw new IOException(what + " stopped while starting: " + lastComplaint().orElse("exit status "
                        + process.exitValue()) + " (see " + log + ")");
            }
            try (Connection ignored = DriverManager.getConnection(url, props)) {
                return;
            } catch (SQLException notYet) {
                if (System.nanoTime() > deadline) {
                    throw new IOException(what + " did not answer within " + within.toSeconds() + " s (see " + log
                            + ")");
                }
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CalledOff();
            }
        }
    }

    /** PostgreSQL's own reason it stopped, from what it logged since this start ({@link StartWatch#reasonLogged}). */
    Optional<String> lastComplaint() {
        return StartWatch.reasonLogged(log, logFrom);
    }

    /** Freezes the server's processes (SIGSTOP) or lets them run again (SIGCONT). */
    void freeze(boolean frozen) {
        List<ProcessHandle> all = new ArrayList<>(List.of(process.toHandle()));
        process.toHandle().descendants().forEach(all::add);
        Slot.signal(frozen ? "-STOP" : "-CONT", all);
    }

    /**
     * Stops the server: a fast shutdown (SIGINT), then a kill if it takes longer than {@value
     * #STOP_SECONDS} s. Disarms the watchman first.
     */
    @Override
    public void close() {
        guard.ifPresent(ServerGuard::close);
        if (!process.isAlive()) {
            return;
        }
        freeze(false);
        Slot.signal("-INT", List.of(process.toHandle()));
        try {
            if (!process.waitFor(STOP_SECONDS, TimeUnit.SECONDS)) {
                process.toHandle().descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
                process.waitFor(STOP_SECONDS, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.toHandle().descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
