package dev.racelab.backend;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A pid file under RaceLab's data directory is only a hint. One that names somebody else's
 * program (a pid reused after RaceLab was killed, here a program calling itself "postgres" or
 * "redis-server") must never get that program stopped; one that is garbage must not stop RaceLab
 * from starting. The embedded servers start in a fresh data directory beside the test.
 */
@Tag("lab")
class StrangerPidFileTest {

    @TempDir
    Path home;

    private final List<String> notes = new ArrayList<>();
    private final StartupListener listener = (service, stage, message) -> notes.add(message);
    private Process stranger;

    /**
     * A program that is not RaceLab's but whose executable is called {@code name}, as the
     * system's own PostgreSQL or Redis is: a copy of {@code sleep} outside RaceLab's folders.
     */
    private Process stranger(String name) throws Exception {
        Path elsewhere = Files.createDirectories(home.resolveSibling(home.getFileName() + "-elsewhere"));
        Path program = elsewhere.resolve(name);
        Files.copy(Path.of("/bin/sleep"), program, StandardCopyOption.REPLACE_EXISTING);
        assertTrue(program.toFile().setExecutable(true));
        stranger = new ProcessBuilder(program.toString(), "300").start();
        return stranger;
    }

    @AfterEach
    void stopTheStranger() throws Exception {
        if (stranger != null) {
            stranger.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void aPidFileNamingSomeoneElsesPostgresLeavesThatProgramRunning() throws Exception {
        Process other = stranger("postgres");
        Path pidFile = home.resolve("postgres/slot-0/data/postmaster.pid");
        Files.createDirectories(pidFile.getParent());
        Files.writeString(pidFile, other.pid() + "\n" + pidFile.getParent() + "\n1700000000\n5432\n");

        try (Postgres postgres = EmbeddedPostgresServer.start(home, listener, () -> false, null)) {
            postgres.probe();
        }
        assertTrue(other.isAlive(), "the stranger was signalled");
        assertTrue(notes.stream().anyMatch(n -> n.contains("not RaceLab's PostgreSQL")), notes.toString());
    }

    @Test
    void aPidFileNamingSomeoneElsesRedisLeavesThatProgramRunning() throws Exception {
        Process other = stranger("redis-server");
        Path pidFile = home.resolve("redis/slot-0/redis.pid");
        Files.createDirectories(pidFile.getParent());
        Files.writeString(pidFile, other.pid() + "\n");

        try (Redis redis = EmbeddedRedisServer.start(home, listener, () -> false, null)) {
            redis.probe();
        }
        assertTrue(other.isAlive(), "the stranger was signalled");
        assertTrue(notes.stream().anyMatch(n -> n.contains("not RaceLab's Redis")), notes.toString());
    }

    @Test
    void aGarbledPidFileIsRemovedAndTheServerStarts() throws Exception {
        Path pidFile = home.resolve("redis/slot-0/redis.pid");
        Files.createDirectories(pidFile.getParent());
        Files.write(pidFile, new byte[] {(byte) 0xff, (byte) 0xfe, '4', '2'});

        try (Redis redis = EmbeddedRedisServer.start(home, listener, () -> false, null)) {
            redis.probe();
            assertTrue(notes.stream().anyMatch(n -> n.contains("Removed a damaged pid file")), notes.toString());
            String pid = Files.readString(pidFile, StandardCharsets.US_ASCII).strip();
            assertTrue(pid.matches("\\d+"), "the server wrote its own pid file: " + pid);
        }
    }
}
