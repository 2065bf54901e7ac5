package dev.racelab.backend;

import dev.racelab.backend.relay.StreamRelay;
import dev.racelab.engine.Service;
import dev.racelab.tasks.Background;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;

/**
 * RaceLab's own PostgreSQL primary with one hot standby, for the labs about replication: never the
 * shared embedded server (holding replication would block every commit on a primary with a
 * synchronous standby).
 *
 * <p>Both servers run from the embedded binaries, in a {@link Slot} of {@code postgres-standby}
 * under the data home ({@code primary/}, {@code standby/}, their logs). Each start makes both
 * clusters anew: the primary's is the build's prepared cluster (or {@code initdb}'s), the
 * standby's a copy of it made before either runs, with {@code standby.signal}; so the standby
 * starts from the primary's first checkpoint and streams the rest. It connects to the primary
 * through a {@link StreamRelay} RaceLab owns: the gate on replication. The primary names the
 * standby synchronous ({@value #STANDBY_NAME}) but commits locally unless a session asks for more
 * ({@code SET synchronous_commit}), so what a lab compares is each session's own choice.
 *
 * <p>Like the embedded servers, each has a watchman, and a start stops what a killed RaceLab left
 * in any free slot. Stopping removes both clusters: nothing in them is worth keeping.
 */
public final class PgStandbyPair implements AutoCloseable {

    /** The standby's {@code application_name}, which the primary's {@code synchronous_standby_names} names. */
    public static final String STANDBY_NAME = "racelab_standby";
    private static final Duration ANSWER_WITHIN = Duration.ofSeconds(30);
    private static final Map<String, String> COMMON = Map.of(
            "listen_addresses", "127.0.0.1",
            "unix_socket_directories", "",
            "fsync", "off",
            "full_page_writes", "off",
            "max_connections", "100");

    /** RaceLab's own: the slot and processes, and the relay; null for a pair the user named. */
    private final Slot slot;
    private PgProcess primaryProcess;
    private PgProcess standbyProcess;
    private final StreamRelay relay;
    /** How to start both again ({@link #renew}); null for a pair the user named. */
    private Renewal renewal;
    private final Postgres primary;
    private final Postgres standby;
    /** The standby's {@code application_name}, as the primary's {@code pg_stat_replication} has it. */
    private final String standbyName;

    private PgStandbyPair(Slot slot, PgProcess primaryProcess, PgProcess standbyProcess, StreamRelay relay,
                          Postgres primary, Postgres standby, String standbyName) {
        this.slot = slot;
        this.primaryProcess = primaryProcess;
        this.standbyProcess = standbyProcess;
        this.relay = relay;
        this.primary = primary;
        this.standby = standby;
        this.standbyName = standbyName;
    }

    /**
     * A primary and its hot standby that someone else runs ({@code --pg-url}, {@code
     * --pg-standby-url}): reached, never reconfigured. RaceLab checks that the standby is in
     * recovery, a copy of the primary's cluster, and streaming from it; there is no relay on their
     * stream, so the labs' faults on it are refused.
     */
    static PgStandbyPair named(PgAddress primaryAddress, PgAddress standbyAddress, Duration login)
            throws BackendException {
        Postgres primary = Postgres.connect(primaryAddress, login);
        Postgres standby = Postgres.standby(standbyAddress, "PostgreSQL %s standby at " + standbyAddress.host() + ":"
                + standbyAddress.port(), login);
        String where = "PostgreSQL at " + standbyAddress.host() + ":" + standbyAddress.port();
        try (Connection p = primary.control("topology"); Connection s = standby.control("topology");
             Statement ps = p.createStatement(); Statement ss = s.createStatement()) {
            long primaryId;
            try (ResultSet rs = ps.executeQuery("SELECT system_identifier FROM pg_control_system()")) {
                rs.next();
                primaryId = rs.getLong(1);
            }
            try (ResultSet rs = ss.executeQuery("SELECT pg_is_in_recovery(), system_identifier FROM pg_control_system()")) {
                rs.next();
                if (!rs.getBoolean(1)) {
                    throw new BackendException(Service.PG_STANDBY, where + " (--pg-standby-url) is not a standby: it "
                            + "is not in recovery");
                }
                if (rs.getLong(2) != primaryId) {
                    throw new BackendException(Service.PG_STANDBY, where + " (--pg-standby-url) is not a standby of "
                            + primaryAddress.host() + ":" + primaryAddress.port() + ": their clusters differ");
                }
            }
            String name = null;
            try (ResultSet rs = ss.executeQuery("SELECT status, conninfo FROM pg_stat_wal_receiver")) {
                if (!rs.next() || !"streaming".equals(rs.getString(1))) {
                    throw new BackendException(Service.PG_STANDBY, where + " (--pg-standby-url) does not stream "
                            + "from a primary now");
                }
                String conninfo = rs.getString(2);
                java.util.regex.Matcher named = conninfo == null ? null
                        : java.util.regex.Pattern.compile("application_name=(\\S+)").matcher(conninfo);
                if (named != null && named.find()) {
                    name = named.group(1);
                }
            }
            if (name != null) {
                return new PgStandbyPair(null, null, null, null, primary, standby, name);
            }
            // Its conninfo is hidden from this login: the primary's one streaming standby, if it has one.
            try (ResultSet rs = ps.executeQuery("SELECT application_name FROM pg_stat_replication "
                    + "WHERE state = 'streaming'")) {
                List<String> streaming = new ArrayList<>();
                while (rs.next()) {
                    streaming.add(rs.getString(1));
                }
                if (streaming.size() == 1) {
                    name = streaming.get(0);
                }
            }
            return new PgStandbyPair(null, null, null, null, primary, standby, name);
        } catch (SQLException e) {
            throw Postgres.explain(standbyAddress, e, "cannot be used as a standby");
        }
    }

    /**
     * Starts the pair under {@code home}, returning once the standby streams from the primary.
     * {@code calledOff} is asked between the steps; once it says yes, what was started is stopped.
     */
    static PgStandbyPair start(Path home, StartupListener listener, BooleanSupplier calledOff, Duration login)
            throws BackendException {
        Path root = home.resolve("postgres-standby");
        Path bin = home.resolve("postgres").resolve("bin");
        Slot slot = null;
        PgProcess primaryProcess = null;
        PgProcess standbyProcess = null;
        StreamRelay relay = null;
        try {
            slot = Slot.acquire(root);
            Path primaryData = slot.dir().resolve("primary");
            Path standbyData = slot.dir().resolve("standby");
            stopLeftovers(slot, bin, listener);
            PostgresBinaries binaries = PostgresBinaries.under(bin);
            listener.progress(Service.PG_STANDBY, StartupListener.Stage.STARTING,
                    "Starting RaceLab's PostgreSQL primary and standby…");
            try (UnpackLock unpacking = UnpackLock.take(bin, () -> { })) {
                binaries.removeIfDamaged().ifPresent(note ->
                        listener.progress(Service.PG_STANDBY, StartupListener.Stage.NOTE, note));
                binaries.unpackIfMissing(calledOff);
            }
            Path postgres = binaries.unpacked().resolve("bin").resolve("postgres");
            makeClusters(binaries, primaryData, standbyData, calledOff);
            int primaryPort = FreePort.find();
            Map<String, String> primaryConfig = new LinkedHashMap<>(COMMON);
            primaryConfig.put("wal_level", "replica");
            primaryConfig.put("max_wal_senders", "4");
            primaryConfig.put("wal_keep_size", "256MB");
            primaryConfig.put("synchronous_standby_names", STANDBY_NAME);
            primaryConfig.put("synchronous_commit", "local");
            primaryProcess = PgProcess.start(postgres, bin, primaryData, primaryPort, primaryConfig,
                    slot.dir().resolve("primary.log"));
            relay = StreamRelay.open("pg-standby", new InetSocketAddress(InetAddress.getLoopbackAddress(), primaryPort),
                    Background.threads("relay-pg-standby"));
            Files.writeString(standbyData.resolve("postgresql.auto.conf"),
                    "primary_conninfo = 'host=127.0.0.1 port=" + relay.port() + " user=postgres application_name="
                            + STANDBY_NAME + "'\n", StandardOpenOption.APPEND);
            Map<String, String> standbyConfig = new LinkedHashMap<>(COMMON);
            standbyConfig.put("hot_standby", "on");
            standbyConfig.put("wal_retrieve_retry_interval", "50ms");
            standbyConfig.put("wal_receiver_status_interval", "1s");
            standbyProcess = PgProcess.start(postgres, bin, standbyData, FreePort.find(), standbyConfig,
                    slot.dir().resolve("standby.log"));
            primaryProcess.awaitAnswer("The primary", ANSWER_WITHIN, calledOff);
            standbyProcess.awaitAnswer("The standby", ANSWER_WITHIN, calledOff);
            PgAddress primaryAddress = address(primaryPort);
            PgAddress standbyAddress = address(standbyProcess.port());
            awaitStreaming(primaryAddress, standbyProcess, calledOff);
            Postgres primaryServer = Postgres.open(primaryAddress, null, "PostgreSQL %s primary on 127.0.0.1:"
                    + primaryPort, login);
            Postgres standbyServer = Postgres.standby(standbyAddress, "PostgreSQL %s standby on 127.0.0.1:"
                    + standbyProcess.port() + " (through a relay)", login);
            PgStandbyPair pair = new PgStandbyPair(slot, primaryProcess, standbyProcess, relay, primaryServer,
                    standbyServer, STANDBY_NAME);
            pair.renewal = new Renewal(binaries, postgres, bin, primaryConfig, standbyConfig);
            return pair;
        } catch (CalledOff e) {
            stopQuietly(slot, primaryProcess, standbyProcess, relay);
            throw new BackendException(Service.PG_STANDBY, "The start of RaceLab's PostgreSQL primary and standby "
                    + "was called off: RaceLab is shutting down", e);
        } catch (IOException | SQLException | BackendException | RuntimeException e) {
            boolean interrupted = calledOff.getAsBoolean();
            stopQuietly(slot, primaryProcess, standbyProcess, relay);
            throw new BackendException(Service.PG_STANDBY, interrupted
                    ? "The start of RaceLab's PostgreSQL primary and standby was called off: RaceLab is shutting down"
                    : "RaceLab's PostgreSQL primary and standby could not start in " + root + ": "
                            + Reasons.root(e), e);
        }
    }


    private static PgAddress address(int port) {
        return new PgAddress("127.0.0.1", port, "postgres", "postgres", null, Map.of());
    }

    /** Stops what a RaceLab killed while it ran a pair left, in this slot and in every free one. */
    private static void stopLeftovers(Slot slot, Path bin, StartupListener listener) throws IOException {
        for (String server : new String[] {"primary", "standby"}) {
            slot.stopLeftovers("PostgreSQL " + server, dir -> dir.resolve(server).resolve("postmaster.pid"), bin,
                    dir -> dir.resolve(server), note -> listener.progress(Service.PG_STANDBY,
                            StartupListener.Stage.NOTE, note));
        }
    }

    /**
     * Makes the primary's cluster anew (the prepared one, else {@code initdb}'s) and the standby's
     * as a copy of it, with {@code standby.signal}.
     */
    private static void makeClusters(PostgresBinaries binaries, Path primary, Path standby, BooleanSupplier calledOff)
            throws IOException, CalledOff {
        for (Path data : new Path[] {primary, standby}) {
            if (Files.exists(data)) {
                PostgresBinaries.deleteRecursively(data);
            }
        }
        Optional<PreparedPostgres> prepared = binaries.prepared();
        if (prepared.isEmpty() || !prepared.get().copyClusterTo(primary, calledOff)) {
            throw new IOException("this build has no prepared cluster to make the pair from");
        }
        Files.createDirectories(standby);
        Files.setPosixFilePermissions(standby, java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
        try (Stream<Path> files = Files.walk(primary)) {
            for (Path from : files.toList()) {
                Path to = standby.resolve(primary.relativize(from).toString());
                if (Files.isDirectory(from)) {
                    Files.createDirectories(to);
                } else {
                    Files.copy(from, to, StandardCopyOption.COPY_ATTRIBUTES);
                }
            }
        }
        Files.createFile(standby.resolve("standby.signal"));
    }

    /** Waits until the primary says the standby streams, its WAL sender up. */
    private static void awaitStreaming(PgAddress primary, PgProcess standby, BooleanSupplier calledOff)
            throws SQLException, IOException, CalledOff {
        long deadline = System.nanoTime() + ANSWER_WITHIN.toNanos();
        try (Connection c = Postgres.connect(primary, Postgres.APP_PREFIX + "topology", 5, null);
             Statement s = c.createStatement()) {
            while (true) {
                try (ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_stat_replication WHERE application_name = '"
                        + STANDBY_NAME + "' AND state = 'streaming'")) {
                    rs.next();
                    if (rs.getInt(1) > 0) {
                        return;
                    }
                }
                if (calledOff.getAsBoolean()) {
                    throw new CalledOff();
                }
                if (!standby.alive() || System.nanoTime() > deadline) {
                    throw new IOException("the standby did not begin to stream from the primary"
                            + standby.lastComplaint().map(r -> ": " + r).orElse(" within "
                            + ANSWER_WITHIN.toSeconds() + " s"));
                }
                try {
                    Thread.sleep(10);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new CalledOff();
                }
            }
        }
    }

    /** The primary: where the labs create their tables and write. */
    public Postgres primary() {
        return primary;
    }

    /** The hot standby: read-only, replaying what the relay passes on. */
    public Postgres standby() {
        return standby;
    }

    /** The relay on the replication stream, primary to standby; none on a pair the user named. */
    public Optional<StreamRelay> relay() {
        return Optional.ofNullable(relay);
    }

    /** Whether RaceLab runs these servers (and may hold their stream); false for a pair the user named. */
    public boolean ours() {
        return slot != null;
    }

    /**
     * The standby's {@code application_name} in the primary's {@code pg_stat_replication}, if known
     * (a named primary with several standbys streaming does not say which is this one).
     */
    public Optional<String> standbyName() {
        return Optional.ofNullable(standbyName);
    }

    /** What starting the pair again takes: the same binaries and settings, on the same ports. */
    private record Renewal(PostgresBinaries binaries, Path postgres, Path bin, Map<String, String> primaryConfig,
                           Map<String, String> standbyConfig) {
    }

    /**
     * Whether the standby left recovery (a lab promoted it): it no longer follows the primary, and
     * the pair must be made anew ({@link #renew}) before it can be used as a pair again.
     */
    public synchronized boolean standbyPromoted() throws SQLException {
        try (Connection c = standby.control("topology"); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT pg_is_in_recovery()")) {
            rs.next();
            return !rs.getBoolean(1);
        }
    }

    /**
     * Makes RaceLab's own pair anew after a lab broke it (promoted its standby): both servers are
     * stopped, their clusters made again as at the start, and both started on the same ports (the
     * relay and every address stay as they were); returns once the standby streams.
     */
    public synchronized void renew(BooleanSupplier stopping) throws BackendException {
        if (renewal == null) {
            throw new IllegalStateException("only RaceLab's own pair is made anew");
        }
        int primaryPort = primaryProcess.port();
        int standbyPort = standbyProcess.port();
        Path primaryData = primaryProcess.data();
        Path standbyData = standbyProcess.data();
        standbyProcess.close();
        primaryProcess.close();
        try {
            makeClusters(renewal.binaries(), primaryData, standbyData, stopping);
            primaryProcess = PgProcess.start(renewal.postgres(), renewal.bin(), primaryData, primaryPort,
                    renewal.primaryConfig(), slot.dir().resolve("primary.log"));
            Files.writeString(standbyData.resolve("postgresql.auto.conf"),
                    "primary_conninfo = 'host=127.0.0.1 port=" + relay.port() + " user=postgres application_name="
                            + STANDBY_NAME + "'\n", StandardOpenOption.APPEND);
            standbyProcess = PgProcess.start(renewal.postgres(), renewal.bin(), standbyData, standbyPort,
                    renewal.standbyConfig(), slot.dir().resolve("standby.log"));
            primaryProcess.awaitAnswer("The primary", ANSWER_WITHIN, stopping);
            standbyProcess.awaitAnswer("The standby", ANSWER_WITHIN, stopping);
            awaitStreaming(primary.address(), standbyProcess, stopping);
        } catch (IOException | SQLException | CalledOff e) {
            throw new BackendException(Service.PG_STANDBY, "RaceLab's PostgreSQL primary and standby could not be "
                    + "made anew: " + Reasons.root(e), e);
        }
    }

    /** Checks that both still answer. */
    public void probe() throws BackendException {
        primary.probe();
        standby.probe();
    }

    @Override
    public String toString() {
        return primary.describe() + ", " + standby.describe();
    }

    /** Stops both servers and the relay and removes their clusters. */
    @Override
    public synchronized void close() {
        stopQuietly(slot, primaryProcess, standbyProcess, relay);
    }

    private static void stopQuietly(Slot slot, PgProcess primary, PgProcess standby, StreamRelay relay) {
        if (slot == null && primary == null) {
            return;
        }
        if (standby != null) {
            standby.close();
        }
        if (relay != null) {
            relay.close();
        }
        if (primary != null) {
            primary.close();
        }
        if (slot == null) {
            return;
        }
        try {
            for (String server : new String[] {"primary", "standby"}) {
                Path data = slot.dir().resolve(server);
                if (Files.exists(data)) {
                    PostgresBinaries.deleteRecursively(data);
                }
            }
        } catch (IOException ignored) {
            // The next start makes them anew whatever is left.
        } finally {
            try {
                slot.close();
            } catch (IOException ignored) {
                // The lock goes when the process ends.
            }
        }
    }
}
