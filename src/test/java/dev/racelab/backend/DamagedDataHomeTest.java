package dev.racelab.backend;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * RaceLab's own state under its data directory, damaged between two starts, in a fresh data
 * directory beside the test: the next start heals it and says what it did, in a line that names
 * the file; it never waits out zonky's minute for a server that cannot start.
 *
 * <p>A truncated PostgreSQL binary, and what the command line prints, are in {@code
 * it/DamagedStateIT}: zonky unpacks its binaries once per JVM, so only a fresh RaceLab process shows them.
 */
@Tag("lab")
class DamagedDataHomeTest {

    /**
     * Far below the minute zonky waits for a server that will not start, far above a start and an
     * initdb on a busy machine: a start that took this long waited for something that never came.
     */
    private static final Duration WELL_UNDER_A_MINUTE = Duration.ofSeconds(45);

    /**
     * One data directory for the class: each test finds a kept cluster that starts (the first one
     * sets it up, each heal leaves a fresh one), so initdb and the unpack are paid once.
     */
    @TempDir
    static Path home;

    private final List<String> notes = new ArrayList<>();
    private final StartupListener listener = (service, stage, message) -> {
        if (stage == StartupListener.Stage.NOTE) {
            notes.add(message);
        }
    };

    private Path data() {
        return home.resolve("postgres/slot-0/data");
    }

    /** A cluster that starts is kept in the slot: the first test sets it up, then stops it. */
    private void aClusterWasKept() throws Exception {
        if (!Files.exists(data().resolve("PG_VERSION"))) {
            try (Postgres postgres = EmbeddedPostgresServer.start(home, StartupListener.SILENT, () -> false, null)) {
                postgres.probe();
            }
        }
        assertTrue(Files.exists(data().resolve("PG_VERSION")), "the cluster is kept between starts");
    }

    /** Starts PostgreSQL and asks it something, as a run would; returns how long the start took. */
    private Duration startAndQuery() throws Exception {
        long began = System.nanoTime();
        try (Postgres postgres = EmbeddedPostgresServer.start(home, listener, () -> false, null)) {
            Duration took = Duration.ofNanos(System.nanoTime() - began);
            try (Connection c = postgres.connect("test"); Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT 6 * 7")) {
                assertTrue(rs.next());
                assertEquals(42, rs.getInt(1));
            }
            return took;
        }
    }

    @Test
    void aClusterWithAWrongPgVersionIsSetUpAnewAndTheServerStarts() throws Exception {
        aClusterWasKept();
        Files.writeString(data().resolve("PG_VERSION"), "99\n");

        Duration took = startAndQuery();

        assertTrue(notes.stream().anyMatch(n -> n.contains(data().toString()) && n.contains("set up anew")
                && n.contains("99")), "the note names the data directory and PostgreSQL's reason: " + notes);
        assertTrue(took.compareTo(WELL_UNDER_A_MINUTE) < 0, "the failed start was noticed at once, not waited out: " + took);
    }

    @Test
    void aClusterWithABrokenPostgresqlConfIsSetUpAnewAndTheServerStarts() throws Exception {
        aClusterWasKept();
        Files.writeString(data().resolve("postgresql.conf"), "this is not = a setting = at all\n",
                StandardOpenOption.APPEND);

        Duration took = startAndQuery();

        assertTrue(notes.stream().anyMatch(n -> n.contains("set up anew") && n.contains("postgresql.conf")),
                "the note names the broken file: " + notes);
        assertTrue(took.compareTo(WELL_UNDER_A_MINUTE) < 0, "the failed start was noticed at once, not waited out: " + took);
        assertTrue(Files.readString(data().resolve("postgresql.conf")).lines()
                .noneMatch(line -> line.startsWith("this is not")), "the configuration is a fresh one");
    }

    @Test
    void aClusterWhoseInitdbWasCutShortIsSetUpAnew() throws Exception {
        aClusterWasKept();
        // initdb writes the configuration first and the catalogs last: killed half way, it leaves
        // a configuration (so zonky does not run initdb again) and no catalog.
        try (Stream<Path> global = Files.list(data().resolve("global"))) {
            for (Path file : global.toList()) {
                Files.delete(file);
            }
        }

        startAndQuery();

        assertTrue(notes.stream().anyMatch(n -> n.contains(data().toString()) && n.contains("set up anew")), notes.toString());
    }

    @Test
    void aGarbledPostmasterPidFileIsRemovedAndTheServerStarts() throws Exception {
        aClusterWasKept();
        Files.write(data().resolve("postmaster.pid"), new byte[] {(byte) 0xff, (byte) 0xfe, '4', '2', '\n'});

        startAndQuery();

        assertTrue(notes.stream().anyMatch(n -> n.contains("Removed a damaged pid file")), notes.toString());
        assertTrue(notes.stream().noneMatch(n -> n.contains("set up anew")), "the cluster itself was fine: " + notes);
    }

    @Test
    void aTruncatedRedisBinaryIsCopiedOutAgainAndTheServerStarts() throws Exception {
        try (Redis redis = EmbeddedRedisServer.start(home, StartupListener.SILENT, () -> false, null)) {
            redis.probe();
        }
        Path binary;
        try (Stream<Path> bin = Files.list(home.resolve("redis/bin"))) {
            binary = bin.filter(p -> p.getFileName().toString().startsWith("redis-server")
                    && !p.getFileName().toString().endsWith(".part")).findFirst().orElseThrow();
        }
        byte[] start = Files.readAllBytes(binary);
        Files.write(binary, Arrays.copyOf(start, 4096));

        try (Redis redis = EmbeddedRedisServer.start(home, listener, () -> false, null)) {
            redis.probe();
        }
        assertTrue(notes.stream().anyMatch(n -> n.contains(binary.toString()) && n.contains("damaged")), notes.toString());
        assertEquals(start.length, Files.size(binary), "the whole binary is back");
    }
}
